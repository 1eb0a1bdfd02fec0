// Running single episodes and reading them back, for the episode and LLM tests.
import type { Client } from '@temporalio/client';
import { asc, eq } from 'drizzle-orm';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import type { Db } from '../../db/client';
import { steps } from '../../db/schema/runs';
import { insertTestRun } from '../fixtures/runs';
import { episodeIdOf, type EpisodeInput, type EpisodeOutcome, type Setting } from '../../domain/episode/types';
import { episodeWorkflowId } from '../../domain/bench/workflowIds';
import { episodeWorkflow } from '../../workflows/episode/episodeWorkflow';

let n = 0;
export async function runEpisode(
  client: Client,
  db: Db,
  methodId: string,
  model: string,
  setting: Setting,
  extra: Partial<EpisodeInput> = {},
  timeout = '3 minutes',
): Promise<EpisodeOutcome> {
  const runId = extra.runId ?? `t-${Date.now().toString(36)}-${++n}`;
  await insertTestRun(db, runId);
  const input: EpisodeInput = { runId, episodeId: episodeIdOf(runId, methodId, model, setting, 0), methodId, model, setting, sample: 0, ...extra };
  return client.workflow.execute(episodeWorkflow, {
    taskQueue: TASK_QUEUES.main,
    workflowId: episodeWorkflowId(runId, methodId, model, setting, 0),
    args: [input],
    workflowExecutionTimeout: timeout,
  });
}

export async function stepsOf(db: Db, episodeId: string) {
  return db.select().from(steps).where(eq(steps.episodeId, episodeId)).orderBy(asc(steps.idx));
}
