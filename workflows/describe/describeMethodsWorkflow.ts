// `pau dataset describe NAME --model M`: reference descriptions for the dataset's methods that have no gold
// description (CruxEval), one describeMethodWorkflow child per method in a sliding window. Progress is a
// query; the result counts kept and rejected descriptions.
import { defineQuery, executeChild, setHandler, workflowInfo } from '@temporalio/workflow';
import {
  describeCoderModel,
  describeMethodWorkflowId,
  type DescribeRunInput,
  type DescribeRunProgress,
  type DescribeRunResult,
} from '../../domain/describe/types';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { PauKind, PauMethodId, PauModel } from '../../domain/temporal/searchAttributes';
import { fanOut } from '../common/fanOut';
import { db } from '../proxies/mainQueue';
import { describeMethodWorkflow } from './describeMethodWorkflow';

export const describeProgressQuery = defineQuery<DescribeRunProgress>('describeProgress');

export async function describeMethodsWorkflow(input: DescribeRunInput): Promise<DescribeRunResult> {
  const split = input.split ?? 'train';
  const coderModel = describeCoderModel(input);
  const threshold = input.threshold ?? 1;
  const progress: DescribeRunProgress = { total: 0, done: 0, accepted: 0, rejected: 0, failed: 0 };
  setHandler(describeProgressQuery, () => progress);
  const ids = await db.listMethodsToDescribe({
    dataset: input.dataset,
    split,
    model: input.model,
    ...(input.force ? { force: true } : {}),
    ...(input.limit ? { limit: input.limit } : {}),
  });
  progress.total = ids.length;
  const { failures } = await fanOut(
    ids,
    async (methodId) => {
      const r = await executeChild(describeMethodWorkflow, {
        args: [{ methodId, model: input.model, coderModel, threshold, runWorkflowId: workflowInfo().workflowId }],
        workflowId: describeMethodWorkflowId(input.model, methodId),
        taskQueue: TASK_QUEUES.main,
        typedSearchAttributes: [
          { key: PauKind, value: 'describe' },
          { key: PauModel, value: input.model },
          { key: PauMethodId, value: methodId },
        ],
        staticSummary: `reference description of ${methodId} by ${input.model}`,
      });
      progress.done++;
      if (r.status === 'accepted') progress.accepted++;
      else progress.rejected++;
    },
    { window: Math.max(1, Math.min(input.window ?? 4, 64)), pauseWhenSuggested: false },
  );
  progress.failed = failures.length;
  progress.done += failures.length;
  return { ...progress, dataset: input.dataset, model: input.model, coderModel, split, threshold };
}
