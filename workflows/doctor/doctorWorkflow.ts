// The operator's end-to-end check: one activity on each task queue, results persisted, a table returned.
import { proxyActivities } from '@temporalio/workflow';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import type { DoctorPartResult } from '../../activities/doctor/checkDatabase';
import type { GpuQueueActivities } from '../../activities/gpuQueue';
import type { MainActivities } from '../../activities/mainQueue';
import type { SandboxQueueActivities } from '../../activities/sandboxQueue';

export interface DoctorInput {
  /** How long a part may wait for a worker on its queue before it is reported as failing. */
  queueWaitSeconds?: number;
}

// Short timeouts and few attempts: the doctor should report a dead queue (no worker picks the task up
// within queueWaitSeconds), not wait on it forever.
function queue<T>(taskQueue: string, waitSeconds: number) {
  return proxyActivities<T>({
    taskQueue,
    scheduleToStartTimeout: `${waitSeconds}s`,
    startToCloseTimeout: '30s',
    retry: { maximumAttempts: 3, initialInterval: '1s' },
  });
}

async function attempt(part: string, fn: () => Promise<DoctorPartResult>): Promise<DoctorPartResult> {
  try {
    return await fn();
  } catch (err) {
    return { part, ok: false, detail: err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err) };
  }
}

export async function doctorWorkflow(input: DoctorInput = {}): Promise<DoctorPartResult[]> {
  const wait = input.queueWaitSeconds ?? 30;
  const main = queue<MainActivities>(TASK_QUEUES.main, wait);
  const sandbox = queue<SandboxQueueActivities>(TASK_QUEUES.sandbox, wait);
  const gpu = queue<GpuQueueActivities>(TASK_QUEUES.gpu, wait);
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
