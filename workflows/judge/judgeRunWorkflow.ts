// Re-judges a stored run with a judge model, without re-running any agent: pages through the run's
// completed episodes (only those this judge has not judged, unless `force`) and runs judgeEpisodeWorkflow
// children in a sliding window, each page drained before the next. Continues as new when the history grows long.
import { continueAsNew, executeChild, workflowInfo } from '@temporalio/workflow';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { judgeEpisodeSearchAttributes, judgeEpisodeWorkflowId } from '../../domain/judge/workflowIds';
import type { JudgeRunInput, JudgeRunResult } from '../../domain/judge/types';
import { db } from '../proxies/mainQueue';
import { fanOut } from '../common/fanOut';
import { judgeEpisodeWorkflow } from './judgeEpisodeWorkflow';

interface Carry {
  afterId?: string;
  totals?: Omit<JudgeRunResult, 'runId' | 'judgeModel'>;
}

export async function judgeRunWorkflow(input: JudgeRunInput & Carry): Promise<JudgeRunResult> {
  const window = Math.max(1, Math.min(input.window ?? 16, 200));
  const totals = input.totals ?? { judged: 0, failed: 0, skipped: 0 };
  let afterId = input.afterId;
  for (;;) {
    const page = await db.listEpisodesToJudge({ runId: input.runId, judgeModel: input.judgeModel, force: input.force, afterId, limit: 200 });
    if (page.length === 0) break;
    const { failures } = await fanOut(
      page,
      async ({ episodeId, methodId }) => {
        const r = await executeChild(judgeEpisodeWorkflow, {
          args: [{ episodeId, runId: input.runId, judgeModel: input.judgeModel, coderModel: input.coderModel, config: input.config }],
          workflowId: judgeEpisodeWorkflowId(input.judgeModel, episodeId),
          taskQueue: TASK_QUEUES.main,
          typedSearchAttributes: judgeEpisodeSearchAttributes(input.runId, input.judgeModel, methodId),
          staticSummary: `judge ${episodeId} with ${input.judgeModel}`,
        });
        if (r.skipped) totals.skipped++;
        else totals.judged++;
      },
      { window, pauseWhenSuggested: false },
    );
    totals.failed += failures.length;
    afterId = page[page.length - 1]!.episodeId;
    if (workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof judgeRunWorkflow>({ ...input, afterId, totals });
    }
  }
  return { runId: input.runId, judgeModel: input.judgeModel, ...totals };
}
