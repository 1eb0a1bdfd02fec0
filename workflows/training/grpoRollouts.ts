// One GRPO epoch's rollouts: an episode child per (method, g) by the current policy, at most the run's
// rollout window in flight at once (the one fan-out, workflows/common/fanOut.ts), outcomes in input order.
import { executeChild, ParentClosePolicy, patched } from '@temporalio/workflow';
import { episodeSearchAttributes } from '../../domain/bench/workflowIds';
import type { EpisodeInput, EpisodeOutcome } from '../../domain/episode/types';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { DEFAULT_ROLLOUT_WINDOW, type GrpoConfig, rolloutWorkflowId } from '../../domain/training/grpo';
import { fanOut } from '../common/fanOut';
import { episodeWorkflow } from '../episode/episodeWorkflow';

export interface RolloutsInput {
  runId: string;
  config: Pick<GrpoConfig, 'split' | 'rolloutWindow'>;
  epoch: number;
  /** The policy's model name (the base, or the previous epoch's checkpoint). */
  policy: string;
  inputs: EpisodeInput[];
  /** Called as each rollout ends (a progress count; the on-policy critic card's). */
  onEnded?: () => void;
}

export async function runRollouts(x: RolloutsInput): Promise<EpisodeOutcome[]> {
  const { runId, config, epoch, policy } = x;
  const rollout = (ep: EpisodeInput): Promise<EpisodeOutcome> =>
    executeChild(episodeWorkflow, {
      args: [ep],
      workflowId: rolloutWorkflowId(ep),
      taskQueue: TASK_QUEUES.main,
      parentClosePolicy: ParentClosePolicy.TERMINATE,
      typedSearchAttributes: episodeSearchAttributes(runId, ep.methodId, policy, config.split),
      staticSummary: `GRPO ${runId} epoch ${epoch + 1}: rollout ${ep.sample % 1000} of ${ep.methodId} by ${policy}`,
    });
  // Kept patch (docs/operations.md): histories recorded before the window started every rollout at once.
  if (!patched('grpo-rollout-window')) return Promise.all(x.inputs.map(rollout));
  const outcomes: EpisodeOutcome[] = [];
  const { failures } = await fanOut(
    x.inputs.keys(),
    async (i) => {
      outcomes[i] = await rollout(x.inputs[i]!);
      x.onEnded?.();
    },
    // An epoch is one execution (continue-as-new comes between epochs); a child that fails (an episode
    // records its own failures, so only a terminated or timed-out one) fails the epoch, as before.
    { window: config.rolloutWindow ?? DEFAULT_ROLLOUT_WINDOW, pauseWhenSuggested: false, failFast: true },
  );
  if (failures[0]) throw failures[0].error;
  return outcomes;
}
