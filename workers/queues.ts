// What each queue's worker serves and how much at once. One place, so `workers/<queue>.ts` entries,
// `npm run workers` and the tests build the same workers.
import { env } from '../config/env';
import { TASK_QUEUES, type TaskQueueName } from '../domain/temporal/queues';
import { createGpuQueueActivities } from '../activities/gpuQueue';
import { createMainActivities } from '../activities/mainQueue';
import { createSandboxQueueActivities } from '../activities/sandboxQueue';
import { defaultPoolSize } from '../platform/sandbox/pool';

export interface QueueSpec {
  taskQueue: TaskQueueName;
  workflows: boolean;
  maxConcurrentActivities: number;
  activities: () => object;
}

export function queueSpecs(): Record<TaskQueueName, QueueSpec> {
  const e = env();
  return {
    [TASK_QUEUES.main]: {
      taskQueue: TASK_QUEUES.main,
      workflows: true,
      maxConcurrentActivities: e.PAU_WORKER_MAIN_CONCURRENCY,
      activities: () => createMainActivities(),
    },
    [TASK_QUEUES.sandbox]: {
      taskQueue: TASK_QUEUES.sandbox,
      workflows: false,
      // Sized to the executors: a batch accepted here waits in the pool's queue (microseconds to hand
      // over) instead of in Temporal's for a free task slot (a poll round trip after each batch).
      maxConcurrentActivities: e.PAU_WORKER_SANDBOX_CONCURRENCY ?? 4 * defaultPoolSize(),
      activities: () => createSandboxQueueActivities(),
    },
    [TASK_QUEUES.gpu]: {
      taskQueue: TASK_QUEUES.gpu,
      workflows: false,
      maxConcurrentActivities: e.PAU_WORKER_GPU_CONCURRENCY,
      activities: () => createGpuQueueActivities(),
    },
  };
}
