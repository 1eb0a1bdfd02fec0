// Starting a judging pass over a stored run: shared by `pau judge` and the tests.
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { JudgeRunInput, JudgeRunResult } from '../../domain/judge/types';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { PauKind, PauModel, PauRunId } from '../../domain/temporal/searchAttributes';

export const judgeRunWorkflowId = (runId: string, judgeModel: string) => `judge/${judgeModel}/${runId}`;

export async function startJudgeRun(client: Client, input: JudgeRunInput): Promise<WorkflowHandle<(input: JudgeRunInput) => Promise<JudgeRunResult>>> {
  return client.workflow.start('judgeRunWorkflow', {
    taskQueue: TASK_QUEUES.main,
    workflowId: judgeRunWorkflowId(input.runId, input.judgeModel),
    args: [input],
    typedSearchAttributes: [
      { key: PauKind, value: 'judge' },
      { key: PauRunId, value: input.runId },
      { key: PauModel, value: input.judgeModel },
    ],
    staticSummary: `judge run ${input.runId} with ${input.judgeModel}${input.force ? ' (all episodes)' : ' (episodes not yet judged)'}`,
  }) as Promise<WorkflowHandle<(input: JudgeRunInput) => Promise<JudgeRunResult>>>;
}
