// Waits for a workflow while redrawing one progress line: in place on a terminal, as plain lines
// elsewhere (CI logs, pipes: a line only when it changed, at most one per `plainMinIntervalMs`).
import type { WorkflowHandle } from '@temporalio/client';

export interface WatchOptions {
  out?: NodeJS.WriteStream;
  /** How often the line is recomputed, on a terminal and elsewhere. */
  pollMs: { tty: number; plain: number };
  plainMinIntervalMs: number;
}

/** The workflow's result (throws if it failed); `line` gives the current progress ('' prints nothing). */
export async function watchWorkflow<T>(handle: WorkflowHandle, line: () => Promise<string>, o: WatchOptions): Promise<T> {
  const out = o.out ?? process.stdout;
  const tty = out.isTTY === true;
  let finished = false;
  const result = (handle.result() as Promise<T>).finally(() => {
    finished = true;
  });
  result.catch(() => undefined);
  let last = '';
  let lastPrint = 0;
  while (!finished) {
    const l = await line().catch(() => '');
    if (l && (tty || (l !== last && Date.now() - lastPrint > o.plainMinIntervalMs))) {
      out.write(tty ? `\r${l}\x1b[K` : `${l}\n`);
      last = l;
      lastPrint = Date.now();
    }
    await Promise.race([result.catch(() => undefined), new Promise((r) => setTimeout(r, tty ? o.pollMs.tty : o.pollMs.plain))]);
  }
  if (tty && last) out.write('\n');
  return result;
}
