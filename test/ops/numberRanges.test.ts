// A number no real run can use, as a new user typed it (`bench run --max-calls 1000000000` was accepted, and
// the in-context episode's preparation then generated 10^9 examples, blocking its worker): refused at the
// command line within seconds, exit 2, naming the flag and its range, with nothing started; the same value
// from a caller that skips the CLI is refused when the run starts (BadRunConfig) or when the episode is
// prepared (BadEpisodeInput), at once, without being attempted.
import { count, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { episodes, runs } from '../../db/schema/runs';
import type { BenchmarkConfig } from '../../domain/bench/types';
import { startBenchmark } from '../../scripts/client/starters';
import { insertFixtureMethods, manyMethods } from '../fixtures/episodeMethods';
import { runCli } from '../helpers/cli';
import { useStack } from '../helpers/stack';
import { runEpisode } from '../episode/helpers';

const METHODS = manyMethods(2, 'ranges/m');
const stack = useStack({
  workers: ['pau'],
  setup: async ({ db }) => {
    await insertFixtureMethods(db, 'fixture-ranges', METHODS);
  },
});

const runCount = async () => (await stack.db.select({ n: count() }).from(runs))[0]!.n;

describe('a number out of its range', () => {
  it.each([
    ['--max-calls', 'must be a whole number from 1 to 200, not 1000000000'],
    ['--k', 'must be a whole number from 0 to 200, not 1000000000'],
  ])('bench run %s 1000000000 exits 2 within seconds naming the flag and its range; nothing starts', async (flag, rule) => {
    const t0 = Date.now();
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    // The CLI's own start-up, measured just before: seconds on this shared machine under load.
    const boot = Date.now() - t0;
    const before = await runCount();
    const t1 = Date.now();
    const r = await runCli(['bench', 'run', '--dataset', 'fixture-ranges', '--models', 'mock-random', '--limit', '1', flag, '1000000000'], {}, 60_000);
    const ms = Date.now() - t1;
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe(`pau bench: ${flag}: ${rule}`);
    expect(r.stdout).toBe('');
    expect(ms, `boot ${boot} ms`).toBeLessThan(Math.max(5_000, 3 * boot));
    expect(await runCount()).toBe(before);
  });

  it("a run's config that skipped the CLI is refused when the run starts, before any episode (BadRunConfig)", async () => {
    const runId = `ranges-api-${Date.now().toString(36)}`;
    const config: BenchmarkConfig = {
      dataset: 'fixture-ranges',
      split: 'test',
      models: ['mock-random'],
      settings: ['in-context'],
      samples: 1,
      budgets: { maxCalls: 1_000_000_000 },
    };
    const handle = await startBenchmark(stack.client, runId, config);
    await expect(handle.result()).rejects.toMatchObject({
      cause: { cause: { type: 'BadRunConfig', message: expect.stringContaining('budgets.maxCalls must be a whole number from 1 to 200, not 1000000000') } },
    });
    expect(await stack.db.select().from(episodes).where(eq(episodes.runId, runId))).toEqual([]);
  });

  it('an in-context episode started with k = 10^9 fails at once, its preparation refused and not retried (BadEpisodeInput)', async () => {
    const t0 = Date.now();
    const out = await runEpisode(stack.client, stack.db, METHODS[0]!.id, 'mock-random', 'in-context', { k: 1_000_000_000 });
    expect(out.status).toBe('failed');
    expect(out.error).toMatch(/^BadEpisodeInput: episode .*: k must be a whole number from 0 to 200, not 1000000000$/);
    // One attempt, no generation: the workflow's few round trips, not an activity timeout and its retries.
    expect(Date.now() - t0).toBeLessThan(30_000);
  });
});
