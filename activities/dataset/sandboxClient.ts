// The DatasetSandbox backed by the real sandbox (activities/sandbox): its pool runs the batches and its
// determinism check (three runs: in order, reversed, another hash seed; plus audit events) decides
// determinism and statelessness. Run C of that check wants an executor with another hash seed; one such
// single-executor pool is kept for the whole build rather than started per method (each call still runs
// in a freshly forked child, so nothing leaks between methods).
import { checkDeterminism, SandboxPool, sharedSandboxPool } from '../sandbox/index';
import type { DatasetSandbox, PortRunInput } from '../../domain/dataset/sandboxPort';

let seedPool: SandboxPool | undefined;
function otherSeedPool(): SandboxPool {
  seedPool ??= new SandboxPool({ size: 1, hashSeed: 1 });
  // checkDeterminism closes the pool it is given: hand it a view whose close() keeps ours open.
  return { runBatch: seedPool.runBatch.bind(seedPool), close: async () => undefined } as unknown as SandboxPool;
}

export function poolDatasetSandbox(pool: SandboxPool = sharedSandboxPool()): DatasetSandbox {
  const req = (i: PortRunInput) => ({ source: i.source, entry: i.entry, calls: i.calls, ...(i.limits ? { limits: i.limits } : {}) });
  return {
    runBatch: (input) => pool.runBatch({ ...req(input), ...(input.audit ? { audit: true } : {}) }),
    checkDeterminism: async (input, first) => {
      // The caller's audited first run is run A (the whole BatchResult: this port's runBatch returned it).
      const runA =
        first?.mode && first.events && first.staticFlags
          ? { mode: first.mode, results: first.results, coverage: null, sourceError: first.sourceError, events: first.events, staticFlags: first.staticFlags }
          : undefined;
      const v = await checkDeterminism(pool, req(input), { freshPool: otherSeedPool, ...(runA ? { runA } : {}) });
      return { deterministic: v.deterministic, stateless: v.stateless, flags: v.flags, work: v.work };
    },
  };
}
