// Runs workers for the given queues in this process; SIGINT/SIGTERM shut them down cleanly (in-flight
// activities get the shutdown grace time).
import type { Worker } from '@temporalio/worker';
import type { TaskQueueName } from '../domain/temporal/queues';
import { closeSharedDb } from '../db/client';
import { detectDevice } from '../activities/doctor/deviceInfo';
import { closeSharedSandboxPool } from '../activities/sandbox/index';
import { createQueueWorker } from './createWorker';
import { queueSpecs } from './queues';

export interface RunningWorkers {
  /** Resolves when every worker has stopped. */
  done: Promise<void>;
  shutdown(): Promise<void>;
}

export async function startWorkers(queues: TaskQueueName[], log: (line: string) => void = console.log): Promise<RunningWorkers> {
  const specs = queueSpecs();
  const workers: Worker[] = [];
  for (const q of queues) {
    const spec = specs[q];
    workers.push(
      await createQueueWorker({
        taskQueue: spec.taskQueue,
        activities: spec.activities(),
        maxConcurrentActivities: spec.maxConcurrentActivities,
        workflows: spec.workflows,
      }),
    );
    const extra = q === 'pau-gpu' ? `, device: ${(await detectDevice()).description}` : '';
    log(`worker ${q}: ready (activities in flight ≤ ${spec.maxConcurrentActivities}${spec.workflows ? ', serves workflows' : ''}${extra})`);
  }
  const done = Promise.all(workers.map((w) => w.run())).then(async () => {
    await Promise.all([closeSharedDb(), closeSharedSandboxPool()]);
    log('workers: stopped');
  });
  const shutdown = async () => {
    for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
    await done;
  };
  return { done, shutdown };
}

/** For the worker entry points: run until a signal, then exit. */
export async function runWorkers(queues: TaskQueueName[]): Promise<void> {
  const running = await startWorkers(queues);
  const stop = (signal: string) => {
    console.log(`workers: ${signal} received, shutting down`);
    void running.shutdown();
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  await running.done;
}
