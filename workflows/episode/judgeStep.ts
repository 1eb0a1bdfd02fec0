// The judge step after a completed episode: a judgeEpisodeWorkflow child (its sandbox runs and model calls
// have their own history), abandoned on the episode's close. Its failure is logged and never fails the episode.
// A run with no judge measures the episode's coverage instead (judge-free, so its report shows it).
import { executeChild, log, ParentClosePolicy, patched, workflowInfo } from '@temporalio/workflow';
import type { EpisodeInput, EpisodeOutcome } from '../../domain/episode/types';
import { judgeEpisodeSearchAttributes, judgeEpisodeWorkflowId } from '../../domain/judge/workflowIds';
import { errorText } from '../../domain/temporal/errorText';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { judgeEpisodeWorkflow } from '../judge/judgeEpisodeWorkflow';
import { db } from '../proxies/mainQueue';
import { sandbox } from '../proxies/sandboxQueue';

export async function judgeStep(input: EpisodeInput, outcome: EpisodeOutcome): Promise<void> {
  // Kept patch (docs/operations.md): histories recorded before this step take the branch below.
  if (!patched('explicit-judge-step')) return judgeAfterEpisodeAsRecorded(input, outcome);
  if (outcome.status !== 'completed') return;
  // Kept patch (docs/operations.md): histories of judge-free episodes recorded before it end here, unmeasured.
  if (!input.judge) {
    if (patched('judge-free-coverage')) await coverageStep(input);
    return;
  }
  // The run judges it once the episode has ended (its window slot is free meanwhile): benchmarkRunWorkflow.
  if (input.judge.byRun) return;
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

/**
 * Coverage of the original by the calls the episode observed (activities/episode/coverage.ts), where the
 * episode ran its calls (placement `inline`: on the `pau` worker); a failure is logged.
 */
async function coverageStep(input: EpisodeInput): Promise<void> {
  try {
    if (input.sandbox === 'inline') {
      await db.measureEpisodeCoverageHere({ episodeId: input.episodeId, ...(input.sandboxLimits ? { limits: input.sandboxLimits } : {}) });
      return;
    }
    const plan = await db.planEpisodeCoverage({ episodeId: input.episodeId });
    const batch =
      plan.observedArgs.length > 0
        ? await sandbox.runMethodBatch({
            source: plan.source,
            entry: plan.entryPoint,
            calls: plan.observedArgs,
            coverage: true,
            ...(input.sandboxLimits ? { limits: input.sandboxLimits } : {}),
          })
        : null;
    await db.recordEpisodeCoverage({ episodeId: input.episodeId, coverage: batch?.coverage ?? null, observed: plan.observedArgs.length });
  } catch (err) {
    log.warn('coverage step failed', { episodeId: input.episodeId, error: errorText(err) });
  }
}

/**
 * Histories recorded before the explicit judge step: their input named the judge workflow in an
 * `afterEpisode` field (always judgeEpisodeWorkflow on the `pau` queue; no caller sets it any more), and the
 * episode started it as the child `<episode>/after`. Replaying them needs that same child command.
 */
async function judgeAfterEpisodeAsRecorded(input: EpisodeInput, outcome: EpisodeOutcome): Promise<void> {
  if (!('afterEpisode' in input) || outcome.status !== 'completed') return;
  try {
    await executeChild(judgeEpisodeWorkflow, {
      args: [{ runId: input.runId, episodeId: input.episodeId }],
      workflowId: `${workflowInfo().workflowId}/after`,
      taskQueue: TASK_QUEUES.main,
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
  } catch (err) {
    log.warn('after-episode hook failed', { episodeId: input.episodeId, error: errorText(err) });
  }
}
