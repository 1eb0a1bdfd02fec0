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

/** `logFile`: the SDK's log entries go there, a warning or error as one console line (domain/temporal/workerLog.ts). */
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
  // The pau-gpu worker's host: its device, and on CUDA the split of its GPUs between vLLM and the trainer,
  // checked before any worker starts (an overlap would run the trainer out of memory beside vLLM).
  const gpu = queues.includes('pau-gpu')
    ? await (async () => {
        const device = await detectDevice();
        const split = device.kind === 'cuda' ? await hostGpuSplit(device.gpus) : undefined;
        if (split?.problem) throw new Error(`worker pau-gpu: ${split.problem} (vllm.gpus in the models file, PAU_TRAINER_GPUS; docs/scale.md)`);
        return { device, split };
      })()
    : undefined;
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
    const extra = q === 'pau-gpu' && gpu ? `, device: ${gpu.device.description}${gpu.split ? `; ${gpu.split.line}` : ''}` : '';
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

/** This host's GPU split: the stack's vLLM entries' `vllm.gpus` against PAU_TRAINER_GPUS (domain/training/gpuSplit.ts). */
async function hostGpuSplit(visible: number) {
  const [{ models }, { stackVllmEntries }, { gpuSplit, parseGpuList }, { env }] = await Promise.all([
    import('../config/models'),
    import('../platform/models/vllm/server'),
    import('../domain/training/gpuSplit'),
    import('../config/env'),
  ]);
  const registry = models();
  const servers = stackVllmEntries(registry.names().map((n) => registry.get(n))).map((s) => ({ name: s.name, ...(s.vllm?.gpus ? { gpus: s.vllm.gpus } : {}) }));
  const raw = env().PAU_TRAINER_GPUS;
  return gpuSplit({ servers, visible, ...(raw ? { trainer: parseGpuList(raw) } : {}) });
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
