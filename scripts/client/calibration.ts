// Starting a calibration run and watching it (progress from the run's row), for `pau calibrate` and `npm start`.
import { parseRunConfig, parseRunSummary } from '../../db/runDocuments';
import type { Client } from '@temporalio/client';
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { runs } from '../../db/schema/runs';
import type { CalibrationConfig } from '../../domain/calibration/types';
import { calibrationSearchAttributes, calibrationWorkflowId } from '../../domain/calibration/workflowIds';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { calibrationWorkflow } from '../../workflows/calibration/calibrationWorkflow';

export function startCalibration(client: Client, runId: string, config: CalibrationConfig) {
  return client.workflow.start(calibrationWorkflow, {
    taskQueue: TASK_QUEUES.main,
    workflowId: calibrationWorkflowId(runId),
    args: [{ runId, config }],
    typedSearchAttributes: calibrationSearchAttributes(runId),
    staticSummary: `calibration of ${config.dataset}/${config.split}${config.limit ? ` (first ${config.limit})` : ''}: original, mutants, constant and identity functions`,
  });
}

/** Methods done / total, from the run's row. */
export async function calibrationProgress(db: Db, runId: string): Promise<{ done: number; total: number } | undefined> {
  const [r] = await db.select({ config: runs.config, summary: runs.summary }).from(runs).where(eq(runs.id, runId)).limit(1);
  if (!r) return undefined;
  const total = parseRunConfig('calibration', r.config, runId).resolvedMethodIds.length;
  const done = Object.keys(parseRunSummary('calibration', r.summary, runId)?.methods ?? {}).length;
  return { done, total };
}
