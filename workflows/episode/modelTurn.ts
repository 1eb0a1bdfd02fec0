// One try of a model turn. A model that answers within seconds (prepareEpisode says so) runs its turns as
// local activities: the result comes back with the workflow task's completion, one Temporal round trip fewer
// per step. Durability is the normal activity's: a crash before that completion runs the turn again (its rows
// are upserts, its model call is answered from llm_calls). A turn whose local attempts fail runs again as a
// normal activity, whose retries (and the episode's outage wait, turnWithOutageWait.ts) take over.
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { type CancellationScope, condition, log, proxyActivities } from '@temporalio/workflow';
import type { MainActivities } from '../../activities/mainQueue';
import { NON_RETRYABLE_LLM_ERRORS } from '../../domain/llm/errorTypes';
import { errorText } from '../../domain/temporal/errorText';
import type { ModelRetry, TurnInput, TurnResult } from '../../domain/episode/types';
import { llm as defaultLlm, llmLocal } from '../proxies/mainQueue';
import { POLICIES } from '../proxies/policies';

/** How long a local turn that found its run being cancelled waits for the request to arrive. */
const RUN_CANCEL_WAIT = '10 seconds';

/** One try of a turn; `tries` counts the earlier tries of the same turn (only a first try runs locally). */
export type ModelTurn = (t: TurnInput, tries: number) => Promise<TurnResult>;

export interface ModelTurnOptions {
  episodeId: string;
  /** Run turns as local activities (until a turn finds its run being cancelled). */
  localTurns: boolean;
  /** Overrides the turn activity's retries (EpisodeInput.modelRetry). */
  modelRetry?: ModelRetry;
  /** The episode's own scope (the work runs in a non-cancellable one): says when its run was cancelled. */
  root: CancellationScope;
}

export function createModelTurn(opts: ModelTurnOptions): ModelTurn {
  const llm = opts.modelRetry ? proxyActivities<MainActivities>({ ...POLICIES.llm, retry: { ...POLICIES.llm.retry, ...opts.modelRetry } }) : defaultLlm;
  let local = opts.localTurns;
  const localTurn = async (t: TurnInput): Promise<TurnResult> => {
    try {
      return await llmLocal.agentTurn(t);
    } catch (err) {
      // An error no retry can fix (a 401, a bad request) fails the turn as the activity's would.
      const cause = err instanceof ActivityFailure ? err.cause : undefined;
      if (cause instanceof ApplicationFailure && (cause.nonRetryable || NON_RETRYABLE_LLM_ERRORS.includes(cause.type ?? ''))) throw err;
      log.info('local model turn failed; running it as an activity', { episodeId: opts.episodeId, error: errorText(err) });
      return llm.agentTurn(t);
    }
  };
  return async (t, tries) => {
    const r = local && tries === 0 ? await localTurn(t) : await llm.agentTurn(t);
    if (r.runCancelling && local) {
      // The run is being cancelled, but this workflow task has been open since an earlier local turn, so the
      // request has not reached this workflow yet: end the task (a timer) and let it in. The episode's turn
      // boundary then stops it; the rest of its turns, if the request never comes, run as normal activities.
      local = false;
      await condition(() => opts.root.consideredCancelled, RUN_CANCEL_WAIT);
    }
    return r;
  };
}
