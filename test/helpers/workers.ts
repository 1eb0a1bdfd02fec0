// In-process workers for tests, against the run's Temporal dev server. The workflow bundle is the workers'
// own (workers/workflowBundle.ts): built once per change of the sources and cached, not once per test file.
import type { Worker } from '@temporalio/worker';
import type { TaskQueueName } from '../../domain/temporal/queues';
import { createQueueWorker } from '../../workers/createWorker';
import { queueSpecs } from '../../workers/queues';
import { type WorkflowBundle, workflowBundleFor } from '../../workers/workflowBundle';

let bundle: Promise<WorkflowBundle> | undefined;
export function workflowBundle(): Promise<WorkflowBundle> {
  bundle ??= workflowBundleFor();
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
