// Re-judges a stored run with a judge model, without re-running any agent: pages through the run's
// completed episodes (only those this judge has not judged, unless `force`) and runs judgeEpisodeWorkflow
// children in a sliding window. Continues as new when the history grows long.
import { continueAsNew, executeChild, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { PauKind, PauMethodId, PauModel, PauRunId } from '../../domain/temporal/searchAttributes';
import type { JudgeActivities } from '../../activities/judge/activities';
import type { JudgeRunInput, JudgeRunResult } from '../../domain/judge/types';
import { judgeEpisodeWorkflow } from './judgeEpisodeWorkflow';

const { listEpisodesToJudge } = proxyActivities<JudgeActivities>({
  taskQueue: TASK_QUEUES.main,
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1s', maximumInterval: '30s' },
});

interface Carry {
  afterId?: string;
  totals?: Omit<JudgeRunResult, 'runId' | 'judgeModel'>;
}

export async function judgeRunWorkflow(input: JudgeRunInput & Carry): Promise<JudgeRunResult> {
  const window = Math.max(1, Math.min(input.window ?? 16, 200));
  const totals = input.totals ?? { judged: 0, failed: 0, skipped: 0 };
  let afterId = input.afterId;
  for (;;) {
    const page = await listEpisodesToJudge({ runId: input.runId, judgeModel: input.judgeModel, force: input.force, afterId, limit: 200 });
    if (page.length === 0) break;
    const queue = [...page];
    const inFlight = new Set<Promise<void>>();
    while (queue.length > 0 || inFlight.size > 0) {
      while (queue.length > 0 && inFlight.size < window) {
        const episodeId = queue.shift()!;
        const p: Promise<void> = executeChild(judgeEpisodeWorkflow, {
          args: [{ episodeId, runId: input.runId, judgeModel: input.judgeModel, coderModel: input.coderModel, config: input.config }],
          workflowId: `judge/${input.judgeModel}/${episodeId}`,
          taskQueue: TASK_QUEUES.main,
          typedSearchAttributes: [
            { key: PauKind, value: 'judge' },
            { key: PauRunId, value: input.runId },
            { key: PauModel, value: input.judgeModel },
            { key: PauMethodId, value: episodeId.slice(input.runId.length + 1).split('/').slice(0, 2).join('/') },
          ],
          staticSummary: `judge ${episodeId} with ${input.judgeModel}`,
        }).then(
          (r) => {
            if (r.skipped) totals.skipped++;
            else totals.judged++;
          },
          () => {
            totals.failed++;
          },
        ).finally(() => inFlight.delete(p));
        inFlight.add(p);
      }
      await Promise.race(inFlight);
    }
    afterId = page[page.length - 1];
    if (workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof judgeRunWorkflow>({ ...input, afterId, totals });
    }
  }
  return { runId: input.runId, judgeModel: input.judgeModel, ...totals };
}
