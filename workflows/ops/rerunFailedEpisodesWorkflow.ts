// Reruns only the failed episodes of a benchmark run, as new executions of the same episode workflow ids
// (the failed ones are closed, so the ids are free); finished episodes are left as they are. Episode
// rows and steps are upserted by the same deterministic keys, and model calls that were made before
// are answered from the llm_calls cache, so a rerun pays only for what had not been done. The failed
// episodes come in pages ordered by id; after `episodesPerExecution` starts (or when Temporal suggests it)
// the rerun continues as new after the last episode it started, so its history stays small at any size.
// At the end the run's report is produced again (stored in Postgres; the CLI writes its files), so it counts
// the episodes that now completed.
import { continueAsNew, ParentClosePolicy, patched, startChild } from '@temporalio/workflow';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { episodeInputFor } from '../../domain/bench/episodeInput';
import { episodeSearchAttributes, episodeWorkflowId } from '../../domain/bench/workflowIds';
import type { EpisodeOutcome } from '../../domain/episode/types';
import { db, report } from '../proxies/mainQueue';
import { fanOut } from '../common/fanOut';
import { episodeWorkflow } from '../episode/episodeWorkflow';

export interface RerunFailedInput {
  runId: string;
  /** Children in flight (default 50). */
  window?: number;
  /** Episodes started per workflow execution before continue-as-new (default 500). */
  episodesPerExecution?: number;
  /** Carried over continue-as-new: the last episode id started, and the counts so far. */
  afterId?: string;
  carried?: { rerun: number; completed: number };
}

export interface RerunFailedResult {
  runId: string;
  rerun: number;
  completed: number;
  stillFailed: number;
  run: { total: number; done: number; failed: number };
}

const PAGE = 500;

export async function rerunFailedEpisodesWorkflow(input: RerunFailedInput): Promise<RerunFailedResult> {
  const window = Math.max(1, input.window ?? 50);
  const perExecution = Math.max(window, input.episodesPerExecution ?? 500);
  let { rerun, completed } = input.carried ?? { rerun: 0, completed: 0 };
  let afterId = input.afterId;
  let startedHere = 0;
  for (;;) {
    const { config, split, failed } = await db.failedEpisodes({ runId: input.runId, ...(afterId !== undefined ? { afterId } : {}), limit: PAGE });
    if (failed.length > 0 && afterId === undefined && rerun === 0) await db.reopenRun({ runId: input.runId, status: 'running' });
    const result = await fanOut(
      failed,
      async (e) => {
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
      },
      { window, maxStarts: perExecution - startedHere },
    );
    startedHere += result.started;
    rerun += result.started;
    if (result.failures[0]) throw result.failures[0].error;
    const last = failed[result.started - 1];
    if (last) afterId = last.episodeId;
    if (result.paused && (result.started < failed.length || failed.length === PAGE)) {
      await continueAsNew<typeof rerunFailedEpisodesWorkflow>({ ...input, ...(afterId !== undefined ? { afterId } : {}), carried: { rerun, completed } });
    }
    if (failed.length < PAGE) break;
  }
  const run = await db.reopenRun({ runId: input.runId, status: 'completed' });
  // Kept patch (docs/operations.md): reruns recorded before it ended without a fresh report.
  if (patched('rerun-report-step')) await report.produceReport({ runId: input.runId });
  return { runId: input.runId, rerun, completed, stillFailed: rerun - completed, run };
}
