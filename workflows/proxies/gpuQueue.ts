// Activities on the `pau-gpu` queue (training steps, local inference). Training workflows add their
// policies to policies.ts and their proxies here.
import { proxyActivities } from '@temporalio/workflow';
import type { GpuQueueActivities } from '../../activities/gpuQueue';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { POLICIES, probePolicy } from './policies';

export const training = proxyActivities<GpuQueueActivities>(POLICIES.training);
export const gpuPrepare = proxyActivities<GpuQueueActivities>(POLICIES.gpuPrepare);

export function gpuProbe(waitSeconds: number) {
  return proxyActivities<GpuQueueActivities>(probePolicy(TASK_QUEUES.gpu, waitSeconds));
}
