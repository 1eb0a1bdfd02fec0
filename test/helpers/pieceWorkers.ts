// A worker on the `pau` queue that serves the piece workflows (pieceWorkflows.ts) and the given activities:
// a piece of a workflow runs on the real Temporal server, alone, against activities the test controls.
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { createQueueWorker, WORKFLOW_INTERCEPTOR_MODULES } from '../../workers/createWorker';
import type { TestWorkers } from './workers';

export async function startPieceWorker(activities: object): Promise<TestWorkers> {
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL('./pieceWorkflows.ts', import.meta.url)),
    workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
    logger: { log: () => undefined, trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
  });
  const worker = await createQueueWorker({ taskQueue: TASK_QUEUES.main, activities, maxConcurrentActivities: 8, workflows: true, workflowBundle });
  const running = worker.run();
  return {
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    },
  };
}
