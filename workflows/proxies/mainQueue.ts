// Activities on the `pau` queue (Postgres, models), one proxy per policy (see policies.ts).
import { proxyActivities } from '@temporalio/workflow';
import type { MainActivities } from '../../activities/mainQueue';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { POLICIES, probePolicy } from './policies';

export const db = proxyActivities<MainActivities>(POLICIES.db);
export const llm = proxyActivities<MainActivities>(POLICIES.llm);
export const judge = proxyActivities<MainActivities>(POLICIES.judge);
export const report = proxyActivities<MainActivities>(POLICIES.report);
export const datasetBuild = proxyActivities<MainActivities>(POLICIES.datasetBuild);
export const calibration = proxyActivities<MainActivities>(POLICIES.db);

export function mainProbe(waitSeconds: number) {
  return proxyActivities<MainActivities>(probePolicy(TASK_QUEUES.main, waitSeconds));
}
