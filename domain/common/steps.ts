// CPU-bound work written as steps: a generator that `yield`s between chunks of its work and returns the
// result. Run to the end at once (runSteps), it is the plain function; run by an activity (runStepsPausing),
// each pause lets the worker's event loop run (heartbeats, other activities, a SIGTERM's shutdown) and
// checks for cancellation, so no single chunk holds the worker for more than milliseconds. Pure: the
// pause itself is the caller's.

/** The result, with no pause between the steps. */
export function runSteps<T>(steps: Generator<void, T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

export interface StepPauses {
  /** Awaited between two steps: the activity heartbeats and yields to its event loop here. */
  pause: () => Promise<void>;
  /** Checked before each step: once aborted, the work stops and its reason is thrown. */
  signal?: AbortSignal;
}

/** The same result as runSteps, pausing between the steps; rejects with the signal's reason once it is aborted. */
export async function runStepsPausing<T>(steps: Generator<void, T>, o: StepPauses): Promise<T> {
  for (;;) {
    if (o.signal?.aborted) {
      // Closes the generator (its finally blocks run) before the reason is thrown.
      steps.return(undefined as T);
      throw o.signal.reason ?? new Error('aborted');
    }
    const r = steps.next();
    if (r.done) return r.value;
    await o.pause();
  }
}
