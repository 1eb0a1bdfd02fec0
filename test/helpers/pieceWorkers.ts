// A worker on the `pau` queue that serves the piece workflows (pieceWorkflows.ts) and the given activities:
// a piece of a workflow runs on the real Temporal server, alone, against activities the test controls.
// usePieceWorker is the one setup block of such a file (like stack.ts's useStack): a Temporal client and the
// piece worker, opened before the file's tests and closed after them.
import { fileURLToPath } from 'node:url';
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll } from 'vitest';
import { connectClient } from '../../config/temporal';
import { TASK_QUEUES, type TaskQueueName } from '../../domain/temporal/queues';
import { createQueueWorker } from '../../workers/createWorker';
import { workflowBundleFor } from '../../workers/workflowBundle';
import { startTestWorkers, type TestWorkers } from './workers';

export async function startPieceWorker(activities: object): Promise<TestWorkers> {
  const workflowBundle = await workflowBundleFor(fileURLToPath(new URL('./pieceWorkflows.ts', import.meta.url)));
  const worker = await createQueueWorker({ taskQueue: TASK_QUEUES.main, activities, maxConcurrentActivities: 8, workflows: true, workflowBundle });
  const running = worker.run();
  return {
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    },
  };
}

export interface PieceWorkerOptions {
  /** The activities the piece workflows call (default none). */
  activities?: object;
  /** Other queues to serve with their real workers for the whole file (e.g. `pau-sandbox`). */
  queues?: Exclude<TaskQueueName, typeof TASK_QUEUES.main>[];
}

export interface PieceStack {
  readonly client: Client;
}

export function usePieceWorker(opts: PieceWorkerOptions = {}): PieceStack {
  let client: Client | undefined;
  const workers: TestWorkers[] = [];
  beforeAll(async () => {
    client = await connectClient();
    workers.push(await startPieceWorker(opts.activities ?? {}));
    if (opts.queues && opts.queues.length > 0) workers.push(await startTestWorkers(opts.queues));
  });
  afterAll(async () => {
    for (const w of workers) await w.shutdown();
    await client?.connection.close();
  });
  return {
    get client() {
      if (!client) throw new Error('usePieceWorker: the client is open only inside tests and hooks');
      return client;
    },
  };
}
