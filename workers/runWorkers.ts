// Runs workers for the given queues in this process; SIGINT/SIGTERM shut them down cleanly (in-flight
// activities get the shutdown grace time).
import type { Worker } from '@temporalio/worker';
import type { TaskQueueName } from '../domain/temporal/queues';
import { downServices, EXIT_SERVICE_DOWN, serviceDownLine, type StackService } from '../config/serviceProbe';

export interface RunningWorkers {
  /** Resolves when every worker has stopped. */
  done: Promise<void>;
  shutdown(): Promise<void>;
}

/** `logFile`: the SDK's log entries go there, a warning or error as one console line (workers/workerLog.ts). */
export async function startWorkers(
  queues: TaskQueueName[],
  log: (line: string) => void = console.log,
  opts: { logFile?: string } = {},
): Promise<RunningWorkers> {
  // Loaded here, not at the top: runWorkers' stack check answers before the SDK and every activity load (~10 s under load).
  const [{ closeSharedDb }, { detectDevice }, { closeSharedSandboxPool }, { createQueueWorker, installRuntime }, { queueSpecs }] = await Promise.all([
    import('../db/client'),
    import('../platform/models/device'),
    import('../activities/sandbox/index'),
    import('./createWorker'),
    import('./queues'),
  ]);
  installRuntime(opts);
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

/**
 * For the worker entry points: run until a signal; resolves to the exit code. With Temporal (or, for the
 * queues whose activities write rows, Postgres) certainly down, says so in one line and resolves to 3 at
 * once instead of a connection deadline's stack trace (docs/cli.md).
 */
export async function runWorkers(queues: TaskQueueName[]): Promise<number> {
  const needed: StackService[] = queues.every((q) => q === 'pau-sandbox') ? ['temporal'] : ['temporal', 'postgres'];
  const down = await downServices(['temporal', 'postgres']);
  if (down.some((d) => needed.includes(d.service))) {
    console.error(`workers: ${serviceDownLine(down)}`);
    return EXIT_SERVICE_DOWN;
  }
  const running = await startWorkers(queues);
  const stop = (signal: string) => {
    console.log(`workers: ${signal} received, shutting down`);
    void running.shutdown();
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  await running.done;
  return 0;
}
