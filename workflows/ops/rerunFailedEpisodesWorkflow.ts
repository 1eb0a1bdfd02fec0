// Reruns only the failed episodes of a benchmark run, as new executions of the same episode workflow ids
// (the failed ones are closed, so the ids are free); finished episodes are left as they are. Episode
// rows and steps are upserted by the same deterministic keys, and model calls that were made before
// are answered from the llm_calls cache, so a rerun pays only for what had not been done.
import { ParentClosePolicy, proxyActivities, startChild } from '@temporalio/workflow';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import type { MainActivities } from '../../activities/mainQueue';
import { episodeInputFor, episodeSearchAttributes, episodeWorkflowId } from '../../domain/bench/episodeInput';
import type { EpisodeOutcome } from '../../domain/episode/types';
import { episodeWorkflow } from '../episode/episodeWorkflow';

const ops = proxyActivities<MainActivities>({
  taskQueue: TASK_QUEUES.main,
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1s', maximumInterval: '30s', nonRetryableErrorTypes: ['RunNotFound', 'RunNotBenchmark'] },
});

export interface RerunFailedInput {
  runId: string;
  /** Children in flight (default 50). */
  window?: number;
}

export interface RerunFailedResult {
  runId: string;
  rerun: number;
  completed: number;
  stillFailed: number;
  run: { total: number; done: number; failed: number };
}

export async function rerunFailedEpisodesWorkflow(input: RerunFailedInput): Promise<RerunFailedResult> {
  const { config, split, failed } = await ops.failedEpisodes({ runId: input.runId });
  const window = Math.max(1, input.window ?? 50);
  if (failed.length > 0) await ops.reopenRun({ runId: input.runId, status: 'running' });
  let completed = 0;
  let next = 0;
  const worker = async () => {
    while (next < failed.length) {
      const e = failed[next++]!;
      const child = await startChild(episodeWorkflow, {
        args: [episodeInputFor(input.runId, config, e.methodId, e.model, e.setting, e.sample)],
        workflowId: episodeWorkflowId(input.runId, e.methodId, e.model, e.setting, e.sample),
        taskQueue: TASK_QUEUES.main,
        parentClosePolicy: ParentClosePolicy.TERMINATE,
        typedSearchAttributes: episodeSearchAttributes(input.runId, e.methodId, e.model, split),
        staticSummary: `episode (rerun): ${e.methodId} · ${e.model} · ${e.setting} · sample ${e.sample} (run ${input.runId})`,
      });
      const outcome: EpisodeOutcome | undefined = await child.result().catch(() => undefined);
      if (outcome?.status === 'completed') completed++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(window, failed.length) }, worker));
  const run = await ops.reopenRun({ runId: input.runId, status: 'completed' });
  return { runId: input.runId, rerun: failed.length, completed, stillFailed: failed.length - completed, run };
}
