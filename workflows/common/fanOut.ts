// The one sliding-window fan-out of workflow code: items are pulled lazily (an iterator, so a cursor moves
// only when an item starts), at most `window` run at once, a failing item is collected, not thrown, and
// the loop stops pulling when `maxStarts` items have started in this execution or Temporal suggests
// continue-as-new. The caller then continues as new with its own cursor (see `paused`). Used by the
// benchmark run, the judge run, the dataset build, the rerun of failed episodes and the GRPO rollouts.
import { condition, workflowInfo } from '@temporalio/workflow';
import { errorText } from '../../domain/temporal/errorText';

export interface FanOutOptions {
  /** Items in flight at once (at least 1). */
  window: number;
  /** Stop pulling after this many starts in this execution (continue-as-new budget). */
  maxStarts?: number;
  /** Stop pulling when Temporal suggests continue-as-new (default true). */
  pauseWhenSuggested?: boolean;
  /** Stop pulling after the first failure (the in-flight items still finish). */
  failFast?: boolean;
  /** Stop pulling once this turns true (a cancellation); the in-flight items still finish. */
  stop?: () => boolean;
}

export interface FanOutResult<T> {
  started: number;
  /** Pulling stopped on the start budget or Temporal's suggestion: unless its cursor is at the end, the caller continues as new. */
  paused: boolean;
  failures: { item: T; error: unknown; text: string }[];
}

export async function fanOut<T>(items: Iterable<T>, run: (item: T) => Promise<void>, opts: FanOutOptions): Promise<FanOutResult<T>> {
  const window = Math.max(1, opts.window);
  const it = items[Symbol.iterator]();
  const running = new Set<Promise<void>>();
  const failures: FanOutResult<T>['failures'] = [];
  let inFlight = 0;
  let started = 0;
  let paused = false;
  for (;;) {
    if (opts.failFast && failures.length > 0) break;
    if ((opts.maxStarts !== undefined && started >= opts.maxStarts) || ((opts.pauseWhenSuggested ?? true) && workflowInfo().continueAsNewSuggested)) {
      paused = true;
      break;
    }
    await condition(() => inFlight < window || (opts.stop?.() ?? false));
    if (opts.stop?.()) break;
    const next = it.next();
    if (next.done) break;
    const item = next.value;
    started++;
    inFlight++;
    const p: Promise<void> = run(item)
      .catch((error: unknown) => {
        failures.push({ item, error, text: errorText(error) });
      })
      .finally(() => {
        inFlight--;
        running.delete(p);
      });
    running.add(p);
  }
  await Promise.all([...running]);
  return { started, paused, failures };
}
