// Activities on the `pau-sandbox` queue (untrusted Python), one proxy per policy (see policies.ts).
import { proxyActivities } from '@temporalio/workflow';
import type { SandboxQueueActivities } from '../../activities/sandboxQueue';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { POLICIES, probePolicy } from './policies';

export const sandbox = proxyActivities<SandboxQueueActivities>(POLICIES.sandboxBatch);
export const datasetCheck = proxyActivities<SandboxQueueActivities>(POLICIES.datasetCheck);

export function sandboxProbe(waitSeconds: number) {
  return proxyActivities<SandboxQueueActivities>(probePolicy(TASK_QUEUES.sandbox, waitSeconds));
}
