// The report step an SFT or GRPO run ends with: the produceReport activity (kind sft or grpo) stores the run's
// report in `reports`. A report that cannot be produced does not undo a finished run: it is logged, and
// `pau sft report` / `pau grpo report` produce it on demand.
import { log } from '@temporalio/workflow';
import { errorText } from '../../domain/temporal/errorText';
import { report } from '../proxies/mainQueue';

/** Histories recorded before training runs stored their report have no such activity at their end. */
export const TRAINING_REPORT_PATCH = 'training-report-step';

export async function produceTrainingReport(input: { kind: 'sft' | 'grpo'; runId: string }): Promise<void> {
  try {
    await report.produceReport(input);
  } catch (err) {
    log.warn('training report not produced', { ...input, error: errorText(err) });
  }
}
