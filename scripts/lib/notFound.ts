// An id on the command line that names nothing: a run, a schedule, a workflow, an episode, a data set. Every
// verb throws NotFoundError for it, and the dispatcher (scripts/pau.ts) prints its one line, `pau <verb>:
// no run "X" (...)`, and exits 2 (docs/cli.md, exit codes), as for any other name that names nothing (an
// unknown model, data set or method in an option): the same line and code whatever the verb.
import { ScheduleNotFoundError } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import type { Db } from '../../db/client';
import { runKindAndStatus } from '../../db/queries/runs';

export class NotFoundError extends Error {
  override name = 'NotFoundError';
}

/** The exit code of an id that names nothing (docs/cli.md): a bad command line. */
export const EXIT_NOT_FOUND = 2;

/** `no run "X"` with where to find the runs that exist. */
export function noRun(runId: string, kind?: string): NotFoundError {
  return new NotFoundError(`no ${kind ? `${kind} ` : ''}run ${JSON.stringify(runId)} (npm run pau -- runs list shows the runs)`);
}

/** The run's kind and status; NotFoundError when there is no run of that id (or none of `kind`). */
export async function requireRun(db: Db, runId: string, kind?: string): Promise<{ kind: string; status: string }> {
  const r = await runKindAndStatus(db, runId);
  if (!r || (kind && r.kind !== kind)) throw noRun(runId, kind);
  return r;
}

/** Whether Temporal said the workflow or schedule asked for does not exist. */
export function isNotFound(err: unknown): boolean {
  return err instanceof WorkflowNotFoundError || err instanceof ScheduleNotFoundError;
}
