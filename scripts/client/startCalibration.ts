// `npm start`'s calibration step: the judge-independent controls (original, mutants, constant and
// identity functions) on the same test methods the start-up benchmark covers, so its report shows them.
// A failure is reported and does not stop the benchmark.
import type { Client } from '@temporalio/client';
import { workflowUiLink } from '../../config/services';
import { calibrationRows } from '../../domain/calibration/summarize';
import { calibrationWorkflowId } from '../../domain/calibration/workflowIds';
import { formatTable } from '../../domain/report/table';
import { errorText } from '../../domain/temporal/errorText';
import { newRunId } from './bench';
import { startCalibration } from './calibration';

export async function runStartCalibration(client: Client, log: (s: string) => void, dataset = 'pau-v1', limit = 10): Promise<void> {
  log('== calibration (code match controls, no judge model)');
  const runId = newRunId('calibrate-start');
  const started = Date.now();
  try {
    const handle = await startCalibration(client, runId, { dataset, split: 'test', limit });
    log(`  ${workflowUiLink(calibrationWorkflowId(runId))}`);
    const summary = await handle.result();
    log(`calibrated ${summary.methods} methods in ${((Date.now() - started) / 1000).toFixed(0)} s (run ${runId})`);
    log(formatTable(['control', 'value', 'expected'], calibrationRows(summary)));
  } catch (err) {
    log(`calibration FAILED (the benchmark goes on; \`npm run pau -- calibrate --limit ${limit}\` retries it): ${errorText(err)}`);
  }
}
