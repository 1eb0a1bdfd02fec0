// Dataset builds on the real stack: BuildDatasetWorkflow with real workers (pau + pau-sandbox, real
// sandbox), idempotence, malformed records, and the CLI.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { asc, eq, inArray } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { makeCheckMethodsBatch } from '../../activities/dataset/checkBatch';
import { poolDatasetSandbox } from '../../activities/dataset/sandboxClient';
import { closeSharedSandboxPool } from '../../activities/sandbox/index';
import { datasetMethods, methods } from '../../db/schema/datasets';
import { finalizeBuild, prepareBuild } from '../../activities/dataset/build';
import { humanEvalFromText } from '../../domain/dataset/records/humaneval';
import { getDataset, getDatasetMethods } from '../../platform/dataset/store';
import type { BuildSummary } from '../../domain/dataset/summary';
import { buildWorkLine, startDatasetBuild } from '../../scripts/client/dataset';
import type { BuildResult, DatasetBuildProgress } from '../../workflows/dataset/buildDatasetWorkflow';
import { runCli } from '../helpers/cli';
import { useStack } from '../helpers/stack';

const stack = useStack({ workers: ['pau', 'pau-sandbox'], dbPool: 4 });
afterAll(async () => {
  await closeSharedSandboxPool();
});

const config = { name: 'ds-test', limit: 12, split: { test: 12, validation: 4 }, batchSize: 5, concurrency: 2 };

async function members(name: string) {
  return stack.db.select().from(datasetMethods).where(eq(datasetMethods.datasetName, name)).orderBy(asc(datasetMethods.methodId));
}

describe('BuildDatasetWorkflow', () => {
  it('builds over all four sources, persists members by split, and a second build gives the same rows and hash', { timeout: 240_000 }, async () => {
    const first = await startDatasetBuild(stack.client, config);
    const r1 = (await first.handle.result()) as BuildResult;
    const s1: BuildSummary = r1;
    expect(Object.keys(s1.sources).sort()).toEqual(['codealpaca', 'cruxeval', 'humaneval', 'mbpp']);
    expect(s1.splits.test).toBe(12);
    expect(s1.splits.validation).toBe(4);
    expect(s1.contentHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    const p1 = await first.handle.query<DatasetBuildProgress>('datasetProgress');
    expect(p1.phase).toBe('done');
    expect(p1.total).toBeGreaterThan(20);
    expect(p1.checked).toBe(p1.total);
    // Every method checked ran its known inputs three times (determinism) and, when accepted, its generated
    // ones: more calls than methods, all counted in the result and the progress alike.
    expect(r1.work.calls).toBeGreaterThan(3 * p1.total);
    expect(p1.work).toEqual(r1.work);
    expect(r1.work.timeoutMs).toBeLessThanOrEqual(r1.work.ms);
    // Stratified: every source with accepted methods is in the test split.
    for (const src of ['humaneval', 'mbpp', 'cruxeval']) expect(s1.sources[src]!.splits.test).toBeGreaterThan(0);

    const rows1 = await members('ds-test');
    expect(rows1.length).toBe(s1.splits.test + s1.splits.validation + s1.splits.train);
    const ms1 = await stack.db
      .select()
      .from(methods)
      .where(
        inArray(
          methods.id,
          rows1.map((r) => r.methodId),
        ),
      )
      .orderBy(asc(methods.id));
    expect(ms1.every((m) => m.verdict === 'accepted' && m.probeInputs.length > 0 && m.signature?.startsWith('def '))).toBe(true);
    for (const m of ms1) {
      expect(m.probeOutputs?.length).toBe(m.probeInputs.length);
      expect(m.probeInputs.filter((x) => m.heldoutInputs.includes(x))).toEqual([]); // disjoint
    }

    const second = await startDatasetBuild(stack.client, config);
    const s2 = (await second.handle.result()) as BuildSummary;
    const p2 = await second.handle.query<DatasetBuildProgress>('datasetProgress');
    expect(p2.total).toBe(0); // nothing changed: no method is rerun
    expect(p2.work.calls).toBe(0);
    expect(buildWorkLine(await second.handle.result())).toBe('sandbox calls: none (every verdict was already recorded)');
    // Methods are shared across datasets: another test file may have checked some of these before the first
    // build, so the first build's own count is what it found checked plus what it checked.
    expect(p2.alreadyChecked).toBe(p1.alreadyChecked + p1.total);
    expect(s2.contentHash).toBe(s1.contentHash);
    const rows2 = await members('ds-test');
    expect(rows2.map((r) => [r.methodId, r.split, r.position])).toEqual(rows1.map((r) => [r.methodId, r.split, r.position]));
    const ms2 = await stack.db
      .select()
      .from(methods)
      .where(
        inArray(
          methods.id,
          rows2.map((r) => r.methodId),
        ),
      )
      .orderBy(asc(methods.id));
    expect(ms2.map((m) => [m.id, m.code, m.probeInputs, m.heldoutInputs, m.verdict])).toEqual(
      ms1.map((m) => [m.id, m.code, m.probeInputs, m.heldoutInputs, m.verdict]),
    );

    // The exported read API.
    const test = await getDatasetMethods(stack.db, 'ds-test', { split: 'test' });
    expect(test).toHaveLength(12);
    expect(test.map((m) => m.position)).toEqual([...Array(12).keys()]);

    // Found by its search attribute, as the UI does.
    let found = false;
    for (let i = 0; i < 50 && !found; i++) {
      for await (const wf of stack.client.workflow.list({ query: `PauKind = 'dataset'` })) if (wf.workflowId === 'dataset/ds-test') found = true;
      if (!found) await new Promise((r) => setTimeout(r, 200));
    }
    expect(found).toBe(true);
  });

  it('a bad config fails the workflow with a typed, non-retryable error and marks nothing ready', async () => {
    const { handle } = await startDatasetBuild(stack.client, { name: 'ds-bad', split: { test: -1, validation: 0 } });
    await expect(handle.result()).rejects.toThrow();
    const row = await getDataset(stack.db, 'ds-bad');
    expect(row?.status ?? 'failed').toBe('failed');
  });
});

describe('malformed records', () => {
  it('are rejected with their reason while the build goes on', { timeout: 120_000 }, async () => {
    const good = (i: number) =>
      JSON.stringify({
        task_id: `M/${i}`,
        prompt: `def f${i}(x):\n    """Adds ${i}."""\n`,
        entry_point: `f${i}`,
        canonical_solution: `    return x + ${i}\n`,
        test: `def check(candidate):\n    assert candidate(1) == ${1 + i}\n    assert candidate(5) == ${5 + i}\n`,
      });
    const text = [
      good(1),
      '{"task_id": "M/2", "prompt": ',
      JSON.stringify({ task_id: 'M/3', prompt: 'def f3(x):\n' }),
      JSON.stringify({
        task_id: 'M/4',
        prompt: 'def f4(x)\n',
        entry_point: 'f4',
        canonical_solution: '    return x\n',
        test: 'def check(candidate):\n    assert candidate(1) == 1\n',
      }),
      good(5),
    ].join('\n');
    const name = 'ds-malformed';
    const prep = await prepareBuild(stack.db, { name, sources: ['humaneval'], split: { test: 1, validation: 0 } }, 'test/malformed', {
      load: async () => humanEvalFromText(text),
    });
    expect(prep.candidates).toBe(3); // M/1, M/4 (does not parse), M/5
    const check = makeCheckMethodsBatch({ db: () => stack.db, sandbox: () => poolDatasetSandbox() });
    expect(await check({ ids: prep.toCheck })).toMatchObject({ checked: 2, accepted: 2 });
    const summary = await finalizeBuild(stack.db, name);
    expect(summary.sources.humaneval!.rejected).toEqual({ 'bad-json': 1, 'malformed-record': 1, 'parse-error': 1 });
    expect(summary.sources.humaneval!.accepted).toBe(2);
    expect(summary.loadRejects.map((r) => [r.sourceId, r.reason])).toEqual([
      ['line:2', 'bad-json'],
      ['M/3', 'malformed-record'],
    ]);
    const [m4] = await stack.db.select().from(methods).where(eq(methods.id, 'humaneval/M/4'));
    expect(m4).toMatchObject({ verdict: 'rejected', rejectReasons: ['parse-error'] });
    expect((m4!.meta as { rejectDetail?: string }).rejectDetail).toMatch(/SyntaxError/);
  });
});

describe('pau dataset CLI', () => {
  it('build prints the tables; show and export read Postgres', { timeout: 240_000 }, async () => {
    const r = await runCli(
      ['dataset', 'build', '--name', 'ds-cli', '--sources', 'humaneval,cruxeval', '--limit', '6', '--test', '4', '--validation', '2'],
      {},
      200_000,
    );
    expect(r.stderr).not.toContain('FAILED');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/source\s+raw\s+accepted\s+rejected\s+test\s+validation\s+train/);
    expect(r.stdout).toMatch(/humaneval\s+6\s+\d+/);
    expect(r.stdout).toMatch(/test split: 4 methods \(paper: 741/);
    // The sandbox's work (these methods' verdicts may already be recorded by the build above: then none).
    expect(r.stdout).toMatch(/sandbox calls: (none \(every verdict was already recorded\)|[\d,]+ \(each in a fresh process\), [\d.]+ s of run time; )/);
    expect(r.stdout).toMatch(/build time: [\d.]+ s/);

    const show = await runCli(['dataset', 'show', 'ds-cli']);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('status: ready');
    expect(show.stdout).toMatch(/cruxeval\s+6\s+\d+/);

    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pau-export-')), 'ds.jsonl');
    const ex = await runCli(['dataset', 'export', 'ds-cli', '--out', out]);
    expect(ex.code).toBe(0);
    const lines = fs
      .readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { split: string; signature: string; probeInputs: string[] });
    const s = (await getDataset(stack.db, 'ds-cli'))!.summary as BuildSummary;
    expect(lines).toHaveLength(s.splits.test + s.splits.validation + s.splits.train);
    expect(lines.filter((l) => l.split === 'test')).toHaveLength(4);
    expect(lines.every((l) => l.signature.startsWith('def ') && l.probeInputs.length > 0)).toBe(true);

    const bad = await runCli(['dataset', 'build', '--sources', 'nope']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--sources');
  });
});
