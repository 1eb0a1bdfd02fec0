// One episode: a model probes one method (interactive) or reads its examples (in-context) and writes a
// description. The conversation lives in Postgres; this workflow carries step indices, pending calls and
// totals only. Failures of the episode itself are recorded in `episodes` and returned, not thrown, so a
// benchmark run never fails because one episode did.
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import {
  CancellationScope,
  condition,
  executeChild,
  log,
  ParentClosePolicy,
  patched,
  proxyActivities,
  setCurrentDetails,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { MainActivities } from '../../activities/mainQueue';
import { DEFAULT_OUTAGE_WAIT_SECONDS, isDbOutage, isModelOutage, outageBackoffMs, WAITING_FOR_DATABASE } from '../../domain/episode/outageWait';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import { NON_RETRYABLE_LLM_ERRORS } from '../../domain/llm/errorTypes';
import { PauOutcome, PauWaitingFor } from '../../domain/temporal/searchAttributes';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { errorText } from '../../domain/temporal/errorText';
import { judgeEpisodeSearchAttributes, judgeEpisodeWorkflowId } from '../../domain/judge/workflowIds';
import {
  DEFAULT_BUDGETS,
  type CallOutcome,
  type EpisodeInput,
  type EpisodeOutcome,
  type PendingCall,
  type TurnInput,
  type TurnResult,
} from '../../domain/episode/types';
import { db, llm as defaultLlm, llmLocal } from '../proxies/mainQueue';
import { POLICIES } from '../proxies/policies';
import { judgeEpisodeWorkflow } from '../judge/judgeEpisodeWorkflow';
import { runSandboxBatch } from './sandboxBatch';

/** Marks a turn that did not run because the episode was cancelled. */
const CANCELLED = Symbol('cancelled');
/** How long a local turn that found its run being cancelled waits for the request to arrive. */
const RUN_CANCEL_WAIT = '10 seconds';

export async function episodeWorkflow(input: EpisodeInput): Promise<EpisodeOutcome> {
  // A cancellation of this episode (its run was cancelled) is noticed at the next turn boundary: the work
  // runs in a non-cancellable scope, so a model call or a sandbox batch in flight finishes and is recorded.
  const root = CancellationScope.current();
  return CancellationScope.nonCancellable(() => runEpisode(input, root));
}

async function runEpisode(input: EpisodeInput, root: CancellationScope): Promise<EpisodeOutcome> {
  const llm = input.modelRetry ? proxyActivities<MainActivities>({ ...POLICIES.llm, retry: { ...POLICIES.llm.retry, ...input.modelRetry } }) : defaultLlm;
  const waitMs = (input.outageWaitSeconds ?? DEFAULT_OUTAGE_WAIT_SECONDS) * 1000;
  /** The model answers within seconds (prepareEpisode says so): its turns run as local activities. */
  let localTurns = false;
  /**
   * A turn as a local activity: its result comes back with the workflow task's completion, one Temporal
   * round trip fewer per step. Durability is the normal activity's: a crash before that completion runs
   * the turn again (its rows are upserts, its model call is answered from llm_calls). A turn whose local
   * attempts fail runs again as a normal activity, whose retries and the outage wait below take over.
   */
  const localTurn = async (t: TurnInput): Promise<TurnResult> => {
    try {
      return await llmLocal.agentTurn(t);
    } catch (err) {
      // An error no retry can fix (a 401, a bad request) fails the turn as the activity's would.
      const cause = err instanceof ActivityFailure ? err.cause : undefined;
      if (cause instanceof ApplicationFailure && (cause.nonRetryable || NON_RETRYABLE_LLM_ERRORS.includes(cause.type ?? ''))) throw err;
      log.info('local model turn failed; running it as an activity', { episodeId: input.episodeId, error: errorText(err) });
      return llm.agentTurn(t);
    }
  };
  /**
   * One model turn; an outage of the model (connection refused, 5xx, 429, timeouts after the activity's own
   * retries) is waited out up to `outageWaitSeconds`, visibly: the episode row, the PauWaitingFor search
   * attribute and the workflow's current details name the model. A cancellation ends the wait.
   */
  const turn = async (t: TurnInput): Promise<TurnResult | typeof CANCELLED> => {
    let since: number | undefined;
    /** What the episode last said it waits for (said again when a database wait turns into a model wait). */
    let announced: 'model' | 'database' | undefined;
    for (let tries = 0; ; tries++) {
      try {
        const r = localTurns && tries === 0 ? await localTurn(t) : await llm.agentTurn(t);
        if (r.runCancelling && localTurns) {
          // The run is being cancelled, but this workflow task has been open since an earlier local turn,
          // so the request has not reached this workflow yet: end the task (a timer) and let it in. The
          // turn boundary below then stops the episode; the rest of its turns, if the request never comes,
          // run as normal activities.
          localTurns = false;
          await condition(() => root.consideredCancelled, RUN_CANCEL_WAIT);
        }
        if (since !== undefined) {
          await db.markEpisodeWaiting({ episodeId: input.episodeId, waiting: null });
          upsertSearchAttributes([{ key: PauWaitingFor, value: null }]);
          setCurrentDetails('');
        }
        return r;
      } catch (err) {
        // Postgres down during the turn (a restart, crash recovery) is waited out like the model, to the same
        // deadline. Histories recorded before either wait existed failed here; they replay through the old
        // branch (a DB outage was not typed then, so `isDbOutage` is false for them and no marker is asked).
        const outage = isModelOutage(err) ? 'model' : isDbOutage(err) && patched('db-outage-wait') ? 'database' : undefined;
        if (!outage || !patched('model-outage-wait')) throw err;
        const what = outage === 'model' ? `model ${input.model}` : 'Postgres';
        const now = Date.now();
        since ??= now;
        const left = since + waitMs - now;
        if (left <= 0)
          throw ApplicationFailure.nonRetryable(
            `${what} unreachable for ${Math.round((now - since) / 1000)} s, longer than the run's outage wait (${Math.round(waitMs / 1000)} s): ${errorText(err)}`,
            outage === 'model' ? FAILURE_TYPES.modelOutageTooLong : FAILURE_TYPES.dbOutageTooLong,
          );
        if (announced !== outage) {
          announced = outage;
          const error = errorText(err);
          // The episode row says so for a model; for Postgres there is no row to write until it is back.
          if (outage === 'model') await db.markEpisodeWaiting({ episodeId: input.episodeId, waiting: { model: input.model, since, error } });
          upsertSearchAttributes([{ key: PauWaitingFor, value: outage === 'model' ? input.model : WAITING_FOR_DATABASE }]);
          setCurrentDetails(
            `waiting for ${what} (unreachable since ${new Date(since).toISOString()}; gives up after ${Math.round(waitMs / 1000)} s): ${error}`,
          );
        }
        if (await condition(() => root.consideredCancelled, outageBackoffMs(tries, left))) return CANCELLED;
      }
    }
  };
  const budgets = { ...DEFAULT_BUDGETS, ...input.budgets };
  const totals = { tokensIn: 0, tokensOut: 0, costUsd: 0 };
  let callsMade = 0;
  let turns = 0;
  let nextIdx = 0;
  const add = (r: TurnResult) => {
    turns++;
    totals.tokensIn += r.tokensIn;
    totals.tokensOut += r.tokensOut;
    totals.costUsd += r.costUsd;
    nextIdx = r.nextIdx;
  };
  const base = {
    episodeId: input.episodeId,
    methodId: input.methodId,
    model: input.model,
    setting: input.setting,
    budgets,
    ...(input.params ? { params: input.params } : {}),
    ...(input.replay ? { replay: true } : {}),
  };

  let outcome: EpisodeOutcome;
  let finalDescription: string | null = null;
  try {
    const prep = await db.prepareEpisode(input);
    nextIdx = prep.nextIdx;
    // Patched: histories recorded before local turns ran every turn as an activity.
    localTurns = prep.localTurns === true && patched('local-agent-turn');
    const runCalls = async (calls: PendingCall[]): Promise<CallOutcome[]> => {
      if (calls.length === 0) return [];
      const results = await runSandboxBatch(
        prep.code,
        prep.entryPoint,
        calls.map((c) => c.arguments),
        input.sandboxLimits,
      );
      callsMade += calls.length;
      return calls.map((c, i) => ({ stepIdx: c.stepIdx, toolCallId: c.toolCallId, arguments: c.arguments, result: results[i]! }));
    };

    // Placement `inline` (a sandbox on the pau workers' host): a step's calls run at the start of the next
    // model turn, in the same activity, instead of in an activity of their own on `pau-sandbox` (patched:
    // histories recorded before it never take this branch).
    const inline = input.sandbox === 'inline' && input.setting === 'interactive' && patched('sandbox-inline-step');
    const limits = input.sandboxLimits ? { limits: input.sandboxLimits } : {};

    let endReason: string;
    if (input.setting === 'in-context') {
      const examples = (await runSandboxBatch(prep.code, prep.entryPoint, prep.exampleInputs, input.sandboxLimits)).map(
        (result, i): CallOutcome => ({ stepIdx: nextIdx + i, arguments: prep.exampleInputs[i]!, result }),
      );
      const r = root.consideredCancelled
        ? CANCELLED
        : await turn({
            ...base,
            idx: nextIdx + examples.length,
            observations: [],
            examples,
            signature: prep.signature,
            entryPoint: prep.entryPoint,
            mode: 'answer',
            callsLeft: 0,
          });
      if (r === CANCELLED) endReason = 'cancelled';
      else {
        add(r);
        finalDescription = r.text ?? null;
        endReason = r.text ? 'answered' : r.answer;
      }
    } else {
      let observations: CallOutcome[] = [];
      let pending: PendingCall[] = [];
      let prompt: TurnInput['prompt'];
      let mode: TurnInput['mode'] = 'explore';
      let idleTurns = 0;
      let lastProse: string | null = null;
      let reasked = false;
      for (;;) {
        // The turn boundary: a cancelled episode stops here (its last observations are not sent).
        const r = root.consideredCancelled
          ? CANCELLED
          : await turn({
              ...base,
              idx: nextIdx,
              observations,
              ...(pending.length > 0 ? { pending: { calls: pending, code: prep.code, entryPoint: prep.entryPoint, ...limits } } : {}),
              ...(prompt ? { prompt } : {}),
              ...(prompt?.kind === 'reask' ? { entryPoint: prep.entryPoint } : {}),
              mode,
              callsLeft: budgets.maxCalls - callsMade,
            });
        if (r === CANCELLED) {
          endReason = 'cancelled';
          break;
        }
        add(r);
        observations = [];
        pending = [];
        prompt = undefined;
        if (r.answer === 'submitted') {
          finalDescription = r.text ?? null;
          endReason = reasked ? 'submitted_after_reask' : mode === 'final' ? 'submitted_after_final_ask' : 'submitted';
          break;
        }
        if (mode === 'final') {
          // Asked for the final description: a plain-text answer counts. An answer with none (calls that
          // can no longer run, an empty or refused message) is asked once more, saying so, without tools;
          // then the episode ends (patched: histories recorded before the re-ask end at the first answer).
          if (r.answer !== 'text' && !reasked && patched('final-reask')) {
            reasked = true;
            prompt = { kind: 'reask', reason: r.answer };
            continue;
          }
          finalDescription = r.answer === 'text' ? (r.text ?? null) : null;
          const after = reasked ? 'after_reask' : 'after_final_ask';
          endReason = r.answer === 'text' ? `answered_in_text_${after}` : reasked ? `no_description_after_reask_${r.answer}` : `no_description_${r.answer}`;
          break;
        }
        // No progress (no call to run, no description) for maxIdleTurns turns in a row: end early rather than
        // burn the turn budget. The latest plain-text answer, if any, is kept as the description (patched:
        // histories recorded before this rule replay without it).
        idleTurns = r.calls.length > 0 ? 0 : idleTurns + 1;
        if (r.answer === 'text') lastProse = r.text ?? null;
        if (idleTurns >= (budgets.maxIdleTurns ?? DEFAULT_BUDGETS.maxIdleTurns) && patched('no-progress-end')) {
          finalDescription = lastProse;
          endReason = 'no_progress';
          break;
        }
        if (inline) {
          pending = r.calls;
          callsMade += r.calls.length;
        } else observations = await runCalls(r.calls);
        if (r.calls.length === 0 && r.answer !== 'empty_submission' && r.answer !== 'problems_only') prompt = { kind: 'nudge', reason: r.answer };
        if (callsMade >= budgets.maxCalls || turns >= budgets.maxTurns) {
          mode = 'final';
          prompt = {
            kind: 'final',
            reason: callsMade >= budgets.maxCalls ? `You have used all ${budgets.maxCalls} calls.` : `You have used all ${budgets.maxTurns} turns.`,
          };
        }
      }
    }
    outcome = { episodeId: input.episodeId, status: endReason === 'cancelled' ? 'cancelled' : 'completed', endReason, callsMade, turns, ...totals };
  } catch (err) {
    log.warn('episode failed', { episodeId: input.episodeId, error: errorText(err) });
    outcome = { episodeId: input.episodeId, status: 'failed', endReason: 'error', callsMade, turns, ...totals, error: errorText(err).slice(0, 4000) };
  }
  await db.finishEpisode({ ...outcome, finalDescription, ...(outcome.status === 'completed' ? { nextIdx } : {}) });
  // The outcome as a search attribute, so the UI finds failed episodes (patched: histories recorded
  // before this command existed replay without it).
  if (patched('episode-outcome-search-attribute')) upsertSearchAttributes([{ key: PauOutcome, value: outcome.status }]);

  // The judge step (a child, so its sandbox runs and model calls have their own history). Its failure is
  // logged and never fails the episode. Histories recorded before this step took a workflow-type hook
  // (`afterEpisode`, child id `<episode>/after`); they replay through the old branch.
  if (patched('explicit-judge-step')) {
    if (input.judge && outcome.status === 'completed') {
      const { judgeModel } = input.judge;
      try {
        await executeChild(judgeEpisodeWorkflow, {
          args: [{ runId: input.runId, episodeId: input.episodeId, judgeModel }],
          workflowId: judgeEpisodeWorkflowId(judgeModel, input.episodeId),
          taskQueue: TASK_QUEUES.main,
          parentClosePolicy: ParentClosePolicy.ABANDON,
          typedSearchAttributes: judgeEpisodeSearchAttributes(input.runId, judgeModel, input.methodId),
          staticSummary: `judge ${input.episodeId} with ${judgeModel}`,
        });
      } catch (err) {
        log.warn('judge step failed', { episodeId: input.episodeId, error: errorText(err) });
      }
    }
  } else if (input.afterEpisode && outcome.status === 'completed') {
    try {
      await executeChild(input.afterEpisode.workflowType, {
        args: [{ runId: input.runId, episodeId: input.episodeId }],
        workflowId: `${workflowInfo().workflowId}/after`,
        taskQueue: input.afterEpisode.taskQueue ?? TASK_QUEUES.main,
        parentClosePolicy: ParentClosePolicy.ABANDON,
      });
    } catch (err) {
      log.warn('after-episode hook failed', { episodeId: input.episodeId, error: errorText(err) });
    }
  }
  return outcome;
}
