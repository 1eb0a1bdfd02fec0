// Activities on the `pau` queue (Postgres, models), one proxy per policy (see policies.ts).
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { MainActivities } from '../../activities/mainQueue';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { LOCAL_POLICIES, POLICIES, probePolicy } from './policies';

export const db = proxyActivities<MainActivities>(POLICIES.db);
export const llm = proxyActivities<MainActivities>(POLICIES.llm);
/** The model turn as a local activity (on the `pau` worker running the episode). */
export const llmLocal = proxyLocalActivities<MainActivities>(LOCAL_POLICIES.llmTurn);
export const judge = proxyActivities<MainActivities>(POLICIES.judge);
export const report = proxyActivities<MainActivities>(POLICIES.report);
export const datasetBuild = proxyActivities<MainActivities>(POLICIES.datasetBuild);
export const calibration = proxyActivities<MainActivities>(POLICIES.db);

export function mainProbe(waitSeconds: number) {
  return proxyActivities<MainActivities>(probePolicy(TASK_QUEUES.main, waitSeconds));
}
