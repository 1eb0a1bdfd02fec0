// A model turn at the episode's turn boundary: a cancelled episode starts no turn, and an outage (the model
// unreachable: connection refused, 5xx, 429, timeouts after the activity's own retries; or Postgres down
// during the turn) is waited out up to the run's outage wait, visibly: the episode row (for a model), the
// PauWaitingFor search attribute and the workflow's current details say what it waits for. A cancellation
// ends the wait.
import { ApplicationFailure } from '@temporalio/common';
import { type CancellationScope, condition, deprecatePatch, setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import { isDbOutage, isModelOutage, outageBackoffMs, WAITING_FOR_DATABASE } from '../../domain/episode/outageWait';
import type { TurnResult } from '../../domain/episode/types';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import { PauWaitingFor } from '../../domain/temporal/searchAttributes';
import { errorText } from '../../domain/temporal/errorText';
import { db } from '../proxies/mainQueue';

/** Marks a turn that did not run (or whose outage wait ended) because the episode was cancelled. */
export const CANCELLED = Symbol('cancelled');
export type TurnOutcome = TurnResult | typeof CANCELLED;

export interface OutageWait {
  episodeId: string;
  /** The model's name, as the episode row and the search attribute show it. */
  model: string;
  /** The longest an outage is waited out, from its first failed try. */
  waitMs: number;
  /** The first sleep between tries, doubling (default DEFAULT_OUTAGE_FIRST_RETRY_MS). */
  firstRetryMs?: number;
  root: CancellationScope;
}

type Outage = 'model' | 'database';

/** What a failed try waits for, if anything: anything else fails the turn at once. */
function outageOf(err: unknown): Outage | undefined {
  const outage: Outage | undefined = isModelOutage(err) ? 'model' : isDbOutage(err) ? 'database' : undefined;
  // Retired patches (docs/operations.md, "Workflow patches"): called where their patched() was, so that
  // histories recorded with the markers replay; no recorded history fails here any more.
  if (outage === 'database') deprecatePatch('db-outage-wait');
  if (outage) deprecatePatch('model-outage-wait');
  return outage;
}

/** Runs `attempt` (one try of the turn) until it answers, waiting out outages; CANCELLED once the episode is. */
export async function turnWithOutageWait(attempt: (tries: number) => Promise<TurnResult>, w: OutageWait): Promise<TurnOutcome> {
  if (w.root.consideredCancelled) return CANCELLED;
  let since: number | undefined;
  /** What the episode last said it waits for (said again when a database wait turns into a model wait). */
  let announced: Outage | undefined;
  for (let tries = 0; ; tries++) {
    try {
      const r = await attempt(tries);
      if (since !== undefined) {
        await db.markEpisodeWaiting({ episodeId: w.episodeId, waiting: null });
        upsertSearchAttributes([{ key: PauWaitingFor, value: null }]);
        setCurrentDetails('');
      }
      return r;
    } catch (err) {
      const outage = outageOf(err);
      if (!outage) throw err;
      const what = outage === 'model' ? `model ${w.model}` : 'Postgres';
      const now = Date.now();
      since ??= now;
      const left = since + w.waitMs - now;
      if (left <= 0)
        throw ApplicationFailure.nonRetryable(
          `${what} unreachable for ${Math.round((now - since) / 1000)} s, longer than the run's outage wait (${Math.round(w.waitMs / 1000)} s): ${errorText(err)}`,
          outage === 'model' ? FAILURE_TYPES.modelOutageTooLong : FAILURE_TYPES.dbOutageTooLong,
        );
      if (announced !== outage) {
        announced = outage;
        const error = errorText(err);
        // The episode row says so for a model; for Postgres there is no row to write until it is back.
        if (outage === 'model') await db.markEpisodeWaiting({ episodeId: w.episodeId, waiting: { model: w.model, since, error } });
        upsertSearchAttributes([{ key: PauWaitingFor, value: outage === 'model' ? w.model : WAITING_FOR_DATABASE }]);
        setCurrentDetails(
          `waiting for ${what} (unreachable since ${new Date(since).toISOString()}; gives up after ${Math.round(w.waitMs / 1000)} s): ${error}`,
        );
      }
      if (await condition(() => w.root.consideredCancelled, outageBackoffMs(tries, left, w.firstRetryMs))) return CANCELLED;
    }
  }
}
