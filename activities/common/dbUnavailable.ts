// An activity's Postgres outage as a typed, retryable failure: the workflow that called it can tell "the
// database is down" (wait it out, like a model outage) from a bug or a bad row (fail).
import { ApplicationFailure } from '@temporalio/common';
import { isDbUnavailable } from '../../db/errors';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';

/** `err` as a retryable DbUnavailable failure when it says Postgres is unreachable; otherwise unchanged. */
export function typedDbFailure(err: unknown): unknown {
  if (err instanceof ApplicationFailure || !isDbUnavailable(err)) return err;
  const message = err instanceof Error ? err.message : String(err);
  return ApplicationFailure.create({
    message: `Postgres unavailable: ${message}`,
    type: FAILURE_TYPES.dbUnavailable,
    ...(err instanceof Error ? { cause: err } : {}),
  });
}
