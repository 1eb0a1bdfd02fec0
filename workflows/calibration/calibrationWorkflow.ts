// The calibration suite over a dataset split: one calibrateMethodWorkflow child per method in a sliding
// window, then the summary (stored in the run's row, kind `calibration`). Independent of every judge model.
import { executeChild } from '@temporalio/workflow';
import type { CalibrationSummary } from '../../domain/calibration/summarize';
import type { CalibrationInput } from '../../domain/calibration/types';
import { calibrateMethodWorkflowId, calibrationSearchAttributes } from '../../domain/calibration/workflowIds';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { fanOut } from '../common/fanOut';
import { calibration } from '../proxies/mainQueue';
import { calibrateMethodWorkflow } from './calibrateMethodWorkflow';

export async function calibrationWorkflow(input: CalibrationInput): Promise<CalibrationSummary> {
  const ids = await calibration.startCalibration(input);
  const { failures } = await fanOut(
    ids,
    async (methodId) => {
      await executeChild(calibrateMethodWorkflow, {
        args: [{ runId: input.runId, methodId }],
        workflowId: calibrateMethodWorkflowId(input.runId, methodId),
        taskQueue: TASK_QUEUES.main,
        typedSearchAttributes: calibrationSearchAttributes(input.runId, methodId),
        staticSummary: `calibrate ${methodId}`,
      });
    },
    { window: Math.max(1, Math.min(input.config.window ?? 4, 50)), pauseWhenSuggested: false },
  );
  return calibration.finishCalibration({ runId: input.runId, failed: failures.length });
}
