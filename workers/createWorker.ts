// Builds a worker for one task queue. Workflows run only on `pau`; the other queues serve activities.
import fs from 'node:fs';
import path from 'node:path';
import { Runtime, Worker, DefaultLogger, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import { env } from '../config/env';
import { temporalDataConverter } from '../config/payloadCodec';
import { connectWorker } from '../config/temporal';
import { payloadGuardActivityInterceptor } from './payloadGuard';
import { workflowBundleFor } from './workflowBundle';
import { workerLogConsoleLine, workerLogFileText } from './workerLog';

export { WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH } from './workflowBundle';

let runtimeInstalled = false;
/**
 * Quieter SDK logs at the configured level; once per process (the first call's options hold). With `logFile`
 * (the workers inside `npm start`), every entry goes to that file and a warning or error is one line on the
 * console (workerLog.ts).
 */
export function installRuntime(opts: { logFile?: string } = {}): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const base = new DefaultLogger(env().LOG_LEVEL);
  const { logFile } = opts;
  if (logFile) fs.mkdirSync(path.dirname(logFile), { recursive: true, mode: 0o700 });
  const logger = new DefaultLogger(env().LOG_LEVEL, (entry) => {
    // Activity-only queues legitimately register no workflows; that warning is noise on every start.
    if (entry.message.startsWith('No workflows registered')) return;
    if (!logFile) return base.log(entry.level, entry.message, entry.meta);
    try {
      fs.appendFileSync(logFile, workerLogFileText(entry), { mode: 0o600 });
    } catch {
      // an unwritable log must not stop a worker; the console line below still says what happened
    }
    const line = workerLogConsoleLine(entry, logFile);
    if (line) console.error(line);
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
