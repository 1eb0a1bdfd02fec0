import { asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BenchmarkConfig, BenchmarkRunResult } from '../../domain/bench/types';
import { runProgress } from '../../db/queries/runs';
import { llmCalls } from '../../db/schema/llm';
import { episodes, runs, steps } from '../../db/schema/runs';
import { startBenchmark } from '../../scripts/client/starters';
import { ADD, insertFixtureMethods, manyMethods, RAISES, REVERSE } from '../fixtures/episodeMethods';
import { runCli, startScript } from '../helpers/cli';
import { startTestWorkers, type TestWorkers } from '../helpers/workers';
import { useStack } from '../helpers/stack';

const stack = useStack({
  setup: async ({ db }) => {
    await insertFixtureMethods(db, 'fixture-bench', [ADD, REVERSE, RAISES]);
    await insertFixtureMethods(db, 'fixture-kill', manyMethods(6, 'fixture/kill'));
  },
});

const base: BenchmarkConfig = {
  dataset: 'fixture-bench',
  split: 'test',
  models: ['mock-oracle', 'mock-random'],
  settings: ['interactive', 'in-context'],
  samples: 1,
};

async function run(config: BenchmarkConfig, runId: string): Promise<BenchmarkRunResult> {
  const handle = await startBenchmark(stack.client, runId, config);
  return handle.result();
}

async function stepRows(runId: string) {
  return stack.db
    .select({ episodeId: steps.episodeId, idx: steps.idx, kind: steps.kind, observation: steps.observation })
    .from(steps)
    .innerJoin(episodes, eq(episodes.id, steps.episodeId))
    .where(eq(episodes.runId, runId))
    .orderBy(asc(steps.episodeId), asc(steps.idx));
}

describe('benchmark run', () => {
  let workers: TestWorkers;
  beforeAll(async () => {
    workers = await startTestWorkers(['pau', 'pau-sandbox']);
  });
  afterAll(async () => workers?.shutdown());

  it('runs split × models × settings in a small window with continue-as-new, and records the run', async () => {
    const runId = `bench-a-${Date.now().toString(36)}`;
    const result = await run({ ...base, window: 2, episodesPerExecution: 4 }, runId);
    expect(result.total).toBe(12);
    expect(result.totals).toMatchObject({ done: 12, failed: 0 });
    const [row] = await stack.db.select().from(runs).where(eq(runs.id, runId));
    expect(row?.status).toBe('completed');
    expect(row?.summary).toMatchObject({ total: 12, done: 12, failed: 0 });
    const eps = await stack.db.select().from(episodes).where(eq(episodes.runId, runId));
    expect(eps).toHaveLength(12);
    expect(eps.every((e) => e.status === 'completed' && e.finalDescription)).toBe(true);
    const progress = await runProgress(stack.db, runId);
    expect(progress).toMatchObject({ total: 12, done: 12, failed: 0, status: 'completed' });
    // continue-as-new happened: the run has more than one execution.
    const executions: string[] = [];
    for await (const wf of stack.client.workflow.list({ query: `WorkflowId = 'bench/${runId}'` })) executions.push(wf.runId);
    expect(executions.length).toBeGreaterThanOrEqual(3);
    // Children are findable by search attributes.
    let found = 0;
    for (let i = 0; i < 50 && found < 12; i++) {
      found = 0;
      for await (const _ of stack.client.workflow.list({ query: `PauKind = 'episode' AND PauRunId = '${runId}'` })) found++;
      if (found < 12) await new Promise((r) => setTimeout(r, 200));
    }
    expect(found).toBe(12);
  });

  it('a failed episode is recorded and does not fail the run', async () => {
    const runId = `bench-b-${Date.now().toString(36)}`;
    const result = await run({ ...base, models: ['mock-oracle', 'mock-unauthorized'], settings: ['interactive'] }, runId);
    expect(result.totals).toMatchObject({ done: 6, failed: 3 });
    const failed = await stack.db.select().from(episodes).where(sql`${episodes.runId} = ${runId} and ${episodes.status} = 'failed'`);
    expect(failed).toHaveLength(3);
    expect(failed.every((e) => e.model === 'mock-unauthorized' && /LlmAuthError/.test(e.error ?? ''))).toBe(true);
  });

  it('a model with a method limit runs on the first N methods only; a limit for a model not in the run fails it', async () => {
    const runId = `bench-l-${Date.now().toString(36)}`;
    const result = await run({ ...base, settings: ['interactive'], modelLimits: { 'mock-random': 1 } }, runId);
    expect(result.total).toBe(3 + 1);
    expect(result.totals).toMatchObject({ done: 4, failed: 0 });
    const eps = await stack.db.select().from(episodes).where(eq(episodes.runId, runId));
    const [row] = await stack.db.select().from(runs).where(eq(runs.id, runId));
    const first = (row?.config as { resolvedMethodIds?: string[] } | undefined)?.resolvedMethodIds?.[0];
    expect(first).toBeDefined();
    expect(eps.filter((e) => e.model === 'mock-oracle')).toHaveLength(3);
    expect(eps.filter((e) => e.model === 'mock-random').map((e) => e.methodId)).toEqual([first]);
    // The progress the CLI draws (and npm start's "episodes ended") counts the same 4.
    expect(await runProgress(stack.db, runId)).toMatchObject({ total: 4, done: 4 });
    const bad = startBenchmark(stack.client, `bench-l2-${Date.now().toString(36)}`, { ...base, modelLimits: { 'mock-null': 1 } });
    await expect(bad.then((h) => h.result())).rejects.toMatchObject({
      cause: { cause: { type: 'BadRunConfig', message: expect.stringMatching(/modelLimits names mock-null, which is not one of the run's models/) } },
    });
  });

  it('a cached rerun makes zero new model calls', async () => {
    // A generous call time limit: a call timing out on a loaded machine in one run and not in the other
    // would change what the agent saw, and so (rightly) the request.
    const cfg: BenchmarkConfig = { ...base, sandboxLimits: { timeoutMs: 20_000 } };
    const first = `bench-c1-${Date.now().toString(36)}`;
    await run(cfg, first);
    const second = `bench-c2-${Date.now().toString(36)}`;
    const result = await run(cfg, second);
    expect(result.totals).toMatchObject({ done: 12, failed: 0, costUsd: 0 });
    // Every model turn of the rerun was answered from llm_calls: no request reached a model.
    const turns = await stack.db
      .select({ cached: sql<boolean>`(${steps.agentMessage}->>'cached')::boolean` })
      .from(steps)
      .innerJoin(episodes, eq(episodes.id, steps.episodeId))
      .where(sql`${episodes.runId} = ${second} and ${steps.kind} = 'assistant'`);
    expect(turns.length).toBeGreaterThanOrEqual(12);
    expect(turns.filter((t) => !t.cached)).toHaveLength(0);
    const firstTurns = await stack.db
      .select({ n: sql<number>`count(*)::int` })
      .from(steps)
      .innerJoin(episodes, eq(episodes.id, steps.episodeId))
      .where(sql`${episodes.runId} = ${first} and ${steps.kind} = 'assistant'`);
    expect(turns.length).toBe(firstTurns[0]?.n);
    const [hits] = await stack.db.select({ n: sql<number>`coalesce(sum(${llmCalls.cacheHits}),0)::int` }).from(llmCalls);
    expect(hits?.n ?? 0).toBeGreaterThanOrEqual(turns.length);
    // Same descriptions, item by item.
    const descs = async (runId: string) =>
      (await stack.db.select().from(episodes).where(eq(episodes.runId, runId)))
        .map((e) => `${e.methodId}|${e.model}|${e.setting}|${e.finalDescription}`)
        .sort();
    expect(await descs(second)).toEqual(await descs(first));
  });
});

describe('pau bench run (CLI)', () => {
  it('prints the run id and UI link, shows progress, exits 0 with a summary table', async () => {
    const workers = await startTestWorkers(['pau', 'pau-sandbox']);
    try {
      const r = await runCli(
        [
          'bench',
          'run',
          '--dataset',
          'fixture-bench',
          '--split',
          'test',
          '--models',
          'mock-oracle,mock-null',
          '--settings',
          'interactive,in-context',
          '--limit',
          '2',
        ],
        {},
        240_000,
      );
      expect(r.stderr).not.toMatch(/error/i);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/run id: bench-\S+/);
      expect(r.stdout).toMatch(/workflows\/bench%2Fbench-/);
      expect(r.stdout).toMatch(/8\/8 episodes\s+failed 0/);
      // model, setting, k (in-context examples; none for interactive), episodes, failed, with description
      expect(r.stdout).toMatch(/mock-oracle\s+interactive\s+-\s+2\s+0\s+2/);
      expect(r.stdout).toMatch(/mock-oracle\s+in-context\s+20\s+2\s+0\s+2/);
      expect(r.stdout).toContain('scripted mock server, not real LLMs');
      const bad = await runCli(['bench', 'run', '--models', 'no-such-model']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('unknown model "no-such-model"');
    } finally {
      await workers.shutdown();
    }
  }, 300_000); // two CLI processes (tsx start-up) and 8 episodes: over 60 s at load 19, over 120 s beside the full suite
});

describe('worker killed mid-run', () => {
  // `inline`: the killed pau worker also ran the step's sandbox calls (placement inline).
  it.each(['queue', 'inline'] as const)(
    'sandbox %s: the run completes on a new worker with no duplicate or missing steps',
    async (placement) => {
      const sandbox = await startTestWorkers(['pau-sandbox']);
      let worker = await startScript('workers/pau.ts', 'ready');
      try {
        const runId = `bench-kill-${placement}-${Date.now().toString(36)}`;
        const handle = await startBenchmark(stack.client, runId, {
          dataset: 'fixture-kill',
          split: 'test',
          models: ['mock-steps'],
          settings: ['interactive'],
          samples: 1,
          window: 3,
          sandbox: placement,
        });
        // Kill the worker once some steps exist and the run is far from done.
        for (let i = 0; i < 200; i++) {
          const [c] = await stack.db
            .select({ n: sql<number>`count(*)::int` })
            .from(steps)
            .innerJoin(episodes, eq(episodes.id, steps.episodeId))
            .where(eq(episodes.runId, runId));
          if ((c?.n ?? 0) >= 15) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        worker.kill('SIGKILL');
        await new Promise((r) => worker.once('exit', r));
        const mid = await runProgress(stack.db, runId);
        expect(mid?.done ?? 0).toBeLessThan(6);
        worker = await startScript('workers/pau.ts', 'ready');
        const result = await handle.result();
        expect(result.totals).toMatchObject({ done: 6, failed: 0 });

        const rows = await stepRows(runId);
        const byEpisode = new Map<string, typeof rows>();
        for (const r of rows) byEpisode.set(r.episodeId, [...(byEpisode.get(r.episodeId) ?? []), r]);
        expect(byEpisode.size).toBe(6);
        for (const [, list] of byEpisode) {
          expect(list.map((s) => s.idx)).toEqual(list.map((_, i) => i)); // contiguous, no gaps, no duplicates
          // 10 turns of one call each, then the submission: system, user, 10 × (assistant, call), assistant, submit.
          expect(list.filter((s) => s.kind === 'call')).toHaveLength(10);
          expect(list.filter((s) => s.kind === 'call' && s.observation === null)).toEqual([]);
          expect(list.filter((s) => s.kind === 'assistant')).toHaveLength(11);
          expect(list.filter((s) => s.kind === 'submit')).toHaveLength(1);
          expect(list).toHaveLength(2 + 2 * 10 + 2);
        }
      } finally {
        worker.kill('SIGTERM');
        await sandbox.shutdown();
      }
    },
    180_000,
  );
});
