// The validity rules in benchmark runs on the real stack (Temporal, Postgres, the sandbox worker, the
// scripted models): budget-matched in-context examples (k = the call budget, the same inputs for every
// model, k recorded and shown), the old probe mode on request, and code match on the dataset's typed
// held-out inputs (raising inputs count) or no code match with the recorded exclusion reason.
import { and, asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { episodes, judgments, steps } from '../../db/schema/runs';
import type { BenchmarkConfig } from '../../domain/bench/types';
import type { EpisodeDiagnostics } from '../../domain/judge/diagnostics';
import { inputKey } from '../../domain/inputs/generator';
import { startBenchmark } from '../../scripts/client/starters';
import { runCli } from '../helpers/cli';
import { fixtureDataset, methodRow } from '../fixtures/datasetRows';
import { useStack } from '../helpers/stack';

const DATASET = 'validity-episodes';
/** Methods as a typed build stores them: held-out inputs generated and run, exclusions decided. */
const METHODS = [
  {
    id: 'validity/head',
    entryPoint: 'head',
    code: 'def head(xs):\n    return xs[0]\n',
    gold: 'Returns the first element of the list xs; raises IndexError when xs is empty.',
    probeInputs: ['[3, 1, 2]', '[7]'],
    heldoutInputs: ['[5, 6]'],
    // `[]` raises IndexError: with typed held-out inputs it counts (the exception is behaviour).
    heldoutGenerated: ['[]', '[9, 8, 7]', '[-1]'],
    heldoutGeneratedOutputs: [
      { ok: false, excType: 'IndexError' },
      { ok: true, repr: '9' },
      { ok: true, repr: '-1' },
    ],
    codeMatchExclusion: null,
  },
  {
    id: 'validity/answer',
    entryPoint: 'answer',
    code: 'def answer(x):\n    return 42\n',
    gold: 'Returns 42 whatever x is.',
    probeInputs: ['1', "'a'"],
    heldoutInputs: [],
    heldoutGenerated: ['2', '[1]'],
    heldoutGeneratedOutputs: [
      { ok: true, repr: '42' },
      { ok: true, repr: '42' },
    ],
    codeMatchExclusion: 'fewer-than-2-distinct-heldout-outputs',
  },
];

const stack = useStack({
  workers: ['pau', 'pau-sandbox'],
  timeoutMs: 180_000,
  setup: fixtureDataset(
    DATASET,
    METHODS.map(({ gold, ...m }) => methodRow({ ...m, goldDescription: gold })),
  ),
});

async function examplesOf(episodeId: string): Promise<string[]> {
  const rows = await stack.db
    .select()
    .from(steps)
    .where(and(eq(steps.episodeId, episodeId), eq(steps.kind, 'example')))
    .orderBy(asc(steps.idx));
  return rows.map((r) => (r.call as { arguments: string }).arguments);
}

describe('in-context examples and code match under the validity rules', () => {
  const runId = `validity-${Date.now().toString(36)}`;

  it('in-context shows maxCalls examples, the same for every model, never a held-out input; k is recorded and shown', { timeout: 240_000 }, async () => {
    const config: BenchmarkConfig = {
      dataset: DATASET,
      split: 'test',
      models: ['mock-oracle', 'mock-random'],
      settings: ['in-context', 'interactive'],
      samples: 1,
      budgets: { maxCalls: 7 },
      judgeModel: 'mock-oracle',
    };
    const result = await (await startBenchmark(stack.client, runId, config)).result();
    expect(result.totals.failed).toBe(0);
    const rows = await stack.db.select().from(episodes).where(eq(episodes.runId, runId));
    const inCtx = rows.filter((e) => e.setting === 'in-context');
    expect(inCtx).toHaveLength(4);
    for (const e of inCtx) expect(e).toMatchObject({ inContextK: 7, inContextExamples: 'generated' });
    for (const e of rows.filter((x) => x.setting === 'interactive')) expect(e).toMatchObject({ inContextK: null, inContextExamples: null });
    for (const m of METHODS) {
      const a = await examplesOf(`${runId}/${m.id}/mock-oracle/in-context/0`);
      const b = await examplesOf(`${runId}/${m.id}/mock-random/in-context/0`);
      expect(a).toHaveLength(7);
      expect(b).toEqual(a); // one agent-independent generator
      expect(a.slice(0, m.probeInputs.length)).toEqual(m.probeInputs);
      for (const h of [...m.heldoutInputs, ...m.heldoutGenerated]) expect(a.map(inputKey)).not.toContain(inputKey(h));
    }

    // `bench status`: k beside the in-context rows, and a per-source table.
    const status = await runCli(['bench', 'status', runId]);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/model\s+setting\s+k\s+episodes/);
    expect(status.stdout).toMatch(/mock-oracle\s+in-context\s+7\s+2\s/);
    expect(status.stdout).toMatch(/mock-oracle\s+interactive\s+-\s+2\s/);
    expect(status.stdout).toMatch(/per source:\n\s*source\s+model\s+setting\s+k/);
    expect(status.stdout).toMatch(/validity\s+mock-random\s+in-context\s+7\s+2\s/);
  });

  it('code match counts raising held-out inputs, and an excluded method gets none, with its reason', async () => {
    const rows = await stack.db
      .select({ methodId: episodes.methodId, model: episodes.model, setting: episodes.setting, j: judgments })
      .from(judgments)
      .innerJoin(episodes, eq(episodes.id, judgments.episodeId))
      .where(eq(episodes.runId, runId));
    expect(rows).toHaveLength(8);
    for (const r of rows.filter((x) => x.methodId === 'validity/head')) {
      const d = r.j.diagnostics as EpisodeDiagnostics & { codeMatchExcluded?: string };
      const { unobserved, ...heldout } = d.heldout ?? { given: 0, generated: 0, counted: 0 };
      expect(heldout).toEqual({ given: 1, generated: 3, counted: 4 }); // `[]` (IndexError) counts
      expect(d.codeMatchExcluded).toBeUndefined();
      if (r.model === 'mock-oracle') {
        expect(r.j.codeMatch).toBe(1);
        // The oracle observes its probe inputs, none of them held out: every counted input is unseen.
        expect(unobserved).toBe(4);
        expect(d.codeMatchUnobserved).toBe(1);
      } else expect(r.j.codeMatch).toBe(0); // the random agent's code returns None: not even the IndexError matches
    }
    for (const r of rows.filter((x) => x.methodId === 'validity/answer')) {
      expect(r.j.codeMatch).toBeNull();
      expect((r.j.diagnostics as { codeMatchExcluded?: string }).codeMatchExcluded).toBe('fewer-than-2-distinct-heldout-outputs');
      expect(r.j.score).not.toBeNull(); // the description is still scored
    }
  });

  it('--in-context-examples probe keeps the old behaviour: the first k probe inputs', { timeout: 120_000 }, async () => {
    const probeRun = `${runId}-probe`;
    const config: BenchmarkConfig = {
      dataset: DATASET,
      split: 'test',
      models: ['mock-oracle'],
      settings: ['in-context'],
      samples: 1,
      inContextExamples: 'probe',
      limit: 1,
    };
    await (await startBenchmark(stack.client, probeRun, config)).result();
    const [e] = await stack.db.select().from(episodes).where(eq(episodes.runId, probeRun));
    expect(e).toMatchObject({ inContextK: 2, inContextExamples: 'probe' });
    expect(await examplesOf(e!.id)).toEqual(METHODS[0]!.probeInputs);
  });
});
