// In-process workers for tests, against the run's Temporal dev server. The workflow bundle is built once
// per test file (webpack takes a second or two).
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { Worker } from '@temporalio/worker';
import type { TaskQueueName } from '../../domain/temporal/queues';
import { createQueueWorker, WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH } from '../../workers/createWorker';
import { queueSpecs } from '../../workers/queues';

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
    logger: { log: () => undefined, trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
  });
  return bundle;
}

export interface TestWorkers {
  shutdown(): Promise<void>;
}

/** Starts workers for the given queues; `activities` overrides a queue's activities (e.g. to inject faults). */
export async function startTestWorkers(queues: TaskQueueName[], activities: Partial<Record<TaskQueueName, object>> = {}): Promise<TestWorkers> {
  const specs = queueSpecs();
  const workers: Worker[] = [];
  for (const q of queues) {
    const spec = specs[q];
    workers.push(
      await createQueueWorker({
        taskQueue: q,
        activities: activities[q] ?? spec.activities(),
        maxConcurrentActivities: spec.maxConcurrentActivities,
        workflows: spec.workflows,
        ...(spec.workflows ? { workflowBundle: await workflowBundle() } : {}),
      }),
    );
  }
  const running = workers.map((w) => w.run());
  return {
    async shutdown() {
      for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
      await Promise.all(running);
    },
  };
}
