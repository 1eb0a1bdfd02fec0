// A worker told to stop exits within its shutdown grace time whatever its activities are doing, and what it
// abandons is finished elsewhere. The CPU-heavy activity is the in-context episode's preparation at the
// largest k the range allows (200 generated examples per episode, run in steps that heartbeat and stop when
// cancelled: domain/common/steps.ts); before the bound, `--k 1000000000` held a worker's event loop until SIGKILL.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { episodes } from '../../db/schema/runs';
import { startBenchmark } from '../../scripts/client/starters';
import { manyMethods, insertFixtureMethods } from '../fixtures/episodeMethods';
import { startScript } from '../helpers/cli';
import { useStack } from '../helpers/stack';
import { startTestWorkers } from '../helpers/workers';

const stack = useStack({
  setup: async ({ db }) => insertFixtureMethods(db, 'fixture-stop', manyMethods(8, 'fixture/stop')),
});

describe('a worker stopped mid-run', () => {
  it('exits within 10 s of SIGTERM while in-context preparations (k 200) are in flight; a new worker finishes the run', async () => {
    const sandbox = await startTestWorkers(['pau-sandbox']);
    let worker = await startScript('workers/pau.ts', 'ready');
    try {
      const runId = `stop-${Date.now().toString(36)}`;
      const handle = await startBenchmark(stack.client, runId, {
        dataset: 'fixture-stop',
        split: 'test',
        models: ['mock-oracle'],
        settings: ['in-context'],
        k: 200,
        samples: 1,
        window: 8,
      });
      // Stop the worker once the first episode rows exist: preparations are then running or about to.
      for (let i = 0; i < 400; i++) {
        const rows = await stack.db.select({ id: episodes.id }).from(episodes).where(eq(episodes.runId, runId));
        if (rows.length > 0) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      const sent = Date.now();
      const exited = new Promise<number | null>((r) => worker.once('exit', (code) => r(code)));
      worker.kill('SIGTERM');
      const code = await exited;
      const stopMs = Date.now() - sent;
      expect(stopMs, `the worker took ${stopMs} ms to exit after SIGTERM`).toBeLessThanOrEqual(10_000);
      expect(code).not.toBeNull(); // it exited by itself, not by a signal's default action

      worker = await startScript('workers/pau.ts', 'ready');
      const result = await handle.result();
      expect(result.totals).toMatchObject({ done: 8, failed: 0 });
      const rows = await stack.db.select().from(episodes).where(eq(episodes.runId, runId));
      expect(rows).toHaveLength(8);
      expect(rows.every((e) => e.status === 'completed')).toBe(true);
    } finally {
      worker.kill('SIGTERM');
      await sandbox.shutdown();
    }
  }, 240_000);
});
