// Waiting out an unreachable model: which failures of a model turn are an outage (worth waiting for) and
// how long to sleep between tries. Pure (workflow-safe). Failures retrying cannot fix (auth, a bad request,
// configuration) are not outages: the episode fails at once.
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/common';
import { LLM_ERROR_TYPES } from '../llm/errorTypes';
import { FAILURE_TYPES } from '../temporal/failureTypes';

/** The longest an episode waits for its model to come back, by default (run config `outageWaitSeconds`). */
export const DEFAULT_OUTAGE_WAIT_SECONDS = 6 * 3600;

const OUTAGE_TYPES: readonly string[] = [LLM_ERROR_TYPES.connection, LLM_ERROR_TYPES.server, LLM_ERROR_TYPES.timeout, LLM_ERROR_TYPES.rateLimited];

/** A model-turn activity that ran out of attempts on connection errors, 5xx, 429 or timeouts. */
export function isModelOutage(err: unknown): boolean {
  if (!(err instanceof ActivityFailure)) return false;
  const cause = err.cause;
  if (cause instanceof TimeoutFailure) return true;
  return cause instanceof ApplicationFailure && !cause.nonRetryable && cause.type != null && OUTAGE_TYPES.includes(cause.type);
}

/** A model-turn activity that ran out of attempts because Postgres was unreachable (typed DbUnavailable by the activity). */
export function isDbOutage(err: unknown): boolean {
  if (!(err instanceof ActivityFailure)) return false;
  const cause = err.cause;
  return cause instanceof ApplicationFailure && !cause.nonRetryable && cause.type === FAILURE_TYPES.dbUnavailable;
}

/** The PauWaitingFor value of an episode waiting for Postgres (a model's name otherwise). */
export const WAITING_FOR_DATABASE = 'postgres';

/** The first sleep between tries of an outage, by default (run config `outageFirstRetrySeconds`). */
export const DEFAULT_OUTAGE_FIRST_RETRY_MS = 5_000;

/** Sleep before the next try: doubling from `firstMs` (5 s), at most 2 minutes, never past the deadline. */
export function outageBackoffMs(tries: number, msLeft: number, firstMs = DEFAULT_OUTAGE_FIRST_RETRY_MS): number {
  return Math.max(0, Math.min(firstMs * 2 ** Math.min(tries, 10), 120_000, msLeft));
}
