// Builds a worker for one task queue. Workflows run only on `pau`; the other queues serve activities.
import { Runtime, Worker, DefaultLogger, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import { env } from '../config/env';
import { temporalDataConverter } from '../config/payloadCodec';
import { connectWorker } from '../config/temporal';
import { payloadGuardActivityInterceptor } from './payloadGuard';
import { workflowBundleFor } from './workflowBundle';

export { WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH } from './workflowBundle';

let runtimeInstalled = false;
/** Quieter SDK logs at the configured level; once per process. */
export function installRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  // Activity-only queues legitimately register no workflows; that warning is noise on every start.
  const base = new DefaultLogger(env().LOG_LEVEL);
  const logger = new DefaultLogger(env().LOG_LEVEL, (entry) => {
    if (entry.message.startsWith('No workflows registered')) return;
    base.log(entry.level, entry.message, entry.meta);
  });
  Runtime.install({ logger });
}

export interface QueueWorkerOptions {
  taskQueue: string;
  activities: object;
  maxConcurrentActivities: number;
  /** Serve workflows too (the `pau` queue). */
  workflows?: boolean;
  connection?: NativeConnection;
  /** Pre-built bundle (the piece tests' own workflows); else workflowBundleFor() (cached, or built in a child). */
  workflowBundle?: WorkerOptions['workflowBundle'];
}

export async function createQueueWorker(opts: QueueWorkerOptions): Promise<Worker> {
  installRuntime();
  const connection = opts.connection ?? (await connectWorker());
  const e = env();
  return Worker.create({
    connection,
    namespace: e.TEMPORAL_NAMESPACE,
    taskQueue: opts.taskQueue,
    activities: opts.activities,
    maxConcurrentActivityTaskExecutions: opts.maxConcurrentActivities,
    shutdownGraceTime: '10s',
    // Every payload encrypted; plain or forged ones are refused unless their workflow predates the codec
    // (the workflow side of the guard is bundled: workers/workflowBundle.ts).
    dataConverter: temporalDataConverter('mark'),
    interceptors: { activity: [payloadGuardActivityInterceptor] },
    ...(opts.workflows
      ? {
          workflowBundle: opts.workflowBundle ?? (await workflowBundleFor()),
          maxConcurrentWorkflowTaskExecutions: Math.min(e.PAU_WORKER_WORKFLOW_CONCURRENCY, 500),
          maxCachedWorkflows: e.PAU_WORKER_WORKFLOW_CONCURRENCY,
        }
      : {}),
  });
}
