// The operator's end-to-end check: one activity on each task queue, results persisted, a table returned.
import type { DoctorPartResult } from '../../activities/doctor/checkDatabase';
import { errorText } from '../../domain/temporal/errorText';
import { gpuProbe } from '../proxies/gpuQueue';
import { mainProbe } from '../proxies/mainQueue';
import { sandboxProbe } from '../proxies/sandboxQueue';

export interface DoctorInput {
  /** How long a part may wait for a worker on its queue before it is reported as failing. */
  queueWaitSeconds?: number;
}

async function attempt(part: string, fn: () => Promise<DoctorPartResult>): Promise<DoctorPartResult> {
  try {
    return await fn();
  } catch (err) {
    return { part, ok: false, detail: errorText(err) };
  }
}

export async function doctorWorkflow(input: DoctorInput = {}): Promise<DoctorPartResult[]> {
  const wait = input.queueWaitSeconds ?? 30;
  const main = mainProbe(wait);
  const sandbox = sandboxProbe(wait);
  const gpu = gpuProbe(wait);
  const results = await Promise.all([
    attempt('postgres', () => main.checkDatabase()),
    attempt('sandbox', () => sandbox.pythonEval()),
    attempt('gpu', () => gpu.deviceInfo()),
  ]);
  await attempt('record', async () => {
    await main.recordDoctorResults(results.filter((r) => r.part !== 'postgres'));
    return { part: 'record', ok: true, detail: '' };
  });
  return results;
}
