import { and, eq, inArray, like } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { BenchmarkConfig } from '../../domain/bench/types';
import { datasetMethods, datasets, methods } from '../../db/schema/datasets';
import { episodes, judgments } from '../../db/schema/runs';
import { llmCalls } from '../../db/schema/llm';
import { startBenchmark } from '../../scripts/client/starters';
import { startJudgeRun } from '../../scripts/client/starters';
import { runCli } from '../helpers/cli';
import { maybeRecordHistory } from '../training/helpers';
import { judgeEpisodeWorkflowId } from '../../domain/judge/workflowIds';
import { useStack } from '../helpers/stack';

/** The calibration subset: small methods of different shapes (ints, strings, floats, tuples, errors). */
const SUBSET = [
  {
    id: 'calib/add',
    entryPoint: 'add',
    signature: 'def add(a, b):',
    code: 'def add(a, b):\n    return a + b\n',
    gold: 'Returns the sum of a and b.',
    probes: ['1, 2', '-3, 3', '10, 5'],
    heldout: ['7, 8', '0, 0'],
  },
  {
    id: 'calib/rev',
    entryPoint: 'rev',
    signature: 'def rev(s):',
    code: 'def rev(s):\n    return s[::-1]\n',
    gold: 'Returns the string s reversed.',
    probes: ["'abc'", "'hello'", "''"],
    heldout: ["'racecar'", "'xy'"],
  },
  {
    id: 'calib/mean',
    entryPoint: 'mean',
    signature: 'def mean(xs):',
    code: 'def mean(xs):\n    if not xs:\n        raise ValueError("empty")\n    return sum(xs) / len(xs)\n',
    gold: 'Returns the arithmetic mean of the list xs as a float; raises ValueError when xs is empty.',
    probes: ['[1, 2, 3]', '[2.5, 3.5]', '[]'],
    heldout: ['[10, 20]', '[1]'],
  },
  {
    id: 'calib/minmax',
    entryPoint: 'minmax',
    signature: 'def minmax(xs):',
    code: 'def minmax(xs):\n    return (min(xs), max(xs))\n',
    gold: 'Returns a tuple of the smallest and the largest element of xs.',
    probes: ['[3, 1, 2]', '[5]', '[-1, 9, 4]'],
    heldout: ['[7, 7, 0]', '[2, 8]'],
  },
  {
    id: 'calib/classify',
    entryPoint: 'classify',
    signature: 'def classify(n):',
    code: "def classify(n):\n    if n < 0:\n        return 'negative'\n    if n % 2 == 0:\n        return 'even'\n    return 'odd'\n",
    gold: "Returns 'negative' for negative n, otherwise 'even' or 'odd' by the parity of n.",
    probes: ['-4', '6', '7'],
    heldout: ['0', '-1', '13'],
  },
  {
    id: 'calib/count_vowels',
    entryPoint: 'count_vowels',
    signature: 'def count_vowels(s):',
    code: "def count_vowels(s):\n    return sum(1 for c in s.lower() if c in 'aeiou')\n",
    gold: 'Counts the vowels (a, e, i, o, u, any case) in the string s.',
    probes: ["'Hello'", "'xyz'", "'AEIOU'"],
    heldout: ["'banana'", "''"],
  },
];
const DATASET = 'calibration';

const stack = useStack({
  workers: ['pau', 'pau-sandbox'],
  timeoutMs: 180_000,
  setup: async ({ db }) => {
    await db
      .insert(datasets)
      .values({ name: DATASET, contentHash: 'fixture:calibration', config: { fixture: true }, status: 'ready' })
      .onConflictDoNothing();
    for (const [i, m] of SUBSET.entries()) {
      await db
        .insert(methods)
        .values({
          id: m.id,
          source: 'calib',
          sourceId: m.entryPoint,
          entryPoint: m.entryPoint,
          signature: m.signature,
          code: m.code,
          goldDescription: m.gold,
          probeInputs: m.probes,
          heldoutInputs: m.heldout,
          verdict: 'accepted',
        })
        .onConflictDoNothing();
      await db.insert(datasetMethods).values({ datasetName: DATASET, methodId: m.id, split: 'test', position: i }).onConflictDoNothing();
    }
  },
});

const runId = `calib-${Date.now().toString(36)}`;

async function judgedRows(judgeModel: string) {
  return stack.db
    .select({ model: episodes.model, setting: episodes.setting, j: judgments })
    .from(judgments)
    .innerJoin(episodes, eq(episodes.id, judgments.episodeId))
    .where(and(eq(episodes.runId, runId), eq(judgments.judgeModel, judgeModel)));
}

const avg = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

describe('judging on the real stack', () => {
  it('judging never holds a window slot: with a window of 1, the next episode starts while the last one is judged', async () => {
    const slotRun = `judge-slot-${Date.now().toString(36)}`;
    const handle = await startBenchmark(stack.client, slotRun, {
      dataset: DATASET,
      split: 'test',
      models: ['mock-oracle'],
      settings: ['interactive'],
      samples: 1,
      limit: 3,
      window: 1,
      judgeModel: 'mock-oracle',
    });
    const result = await handle.result();
    expect(result.totals).toMatchObject({ done: 3, failed: 0 });
    await maybeRecordHistory(handle, 'benchmarkRun-judged-by-run.json');
    const eps = await stack.db.select().from(episodes).where(eq(episodes.runId, slotRun));
    const ended = eps.filter((e) => e.status === 'completed');
    expect(ended).toHaveLength(3);
    // Every episode judged, by a child of the run (not of the episode), before the run ended.
    const judged = await stack.db
      .select()
      .from(judgments)
      .where(
        inArray(
          judgments.episodeId,
          ended.map((e) => e.id),
        ),
      );
    expect(judged).toHaveLength(3);
    const info = await Promise.all(
      ended.map(async (e) => ({
        episode: e,
        judge: await stack.client.workflow.getHandle(judgeEpisodeWorkflowId('mock-oracle', e.id)).describe(),
      })),
    );
    for (const x of info) expect(x.judge.parentExecution?.workflowId).toBe(handle.workflowId);
    // The slot: some episode started before the judging of the episode before it had ended.
    const byStart = [...info].sort((a, b) => a.episode.startedAt!.getTime() - b.episode.startedAt!.getTime());
    const overlaps = byStart.slice(1).filter((x, i) => x.episode.startedAt!.getTime() < byStart[i]!.judge.closeTime!.getTime());
    expect(overlaps.length).toBeGreaterThan(0);
  }, 180_000);

  it("calibration: oracle >= 4.5 and >= 95% code match; null <= 1.5 and <= 10% (judged by the run's judge children)", async () => {
    const config: BenchmarkConfig & { judgeModel: string } = {
      dataset: DATASET,
      split: 'test',
      models: ['mock-oracle', 'mock-null', 'mock-random'],
      settings: ['interactive', 'in-context'],
      samples: 1,
      window: 8,
      judgeModel: 'mock-oracle',
    };
    const result = await (await startBenchmark(stack.client, runId, config)).result();
    expect(result.totals.failed).toBe(0);
    const rows = await judgedRows('mock-oracle');
    expect(rows).toHaveLength(SUBSET.length * 6);
    // The random agent sits well below the oracle.
    const randomScore = avg(rows.filter((r) => r.model === 'mock-random').map((r) => r.j.score ?? 0));
    console.log(`calibration mock-random: score ${randomScore.toFixed(2)}`);
    expect(randomScore).toBeLessThanOrEqual(2.5);
    for (const model of ['mock-oracle', 'mock-null']) {
      for (const setting of ['interactive', 'in-context']) {
        const g = rows.filter((r) => r.model === model && r.setting === setting).map((r) => r.j);
        const score = avg(g.map((j) => j.score ?? 0));
        const match = avg(g.map((j) => j.codeMatch ?? 0));
        console.log(`calibration ${model} ${setting}: score ${score.toFixed(2)}, code match ${(100 * match).toFixed(1)}%`);
        if (model === 'mock-oracle') {
          expect(score).toBeGreaterThanOrEqual(4.5);
          expect(match).toBeGreaterThanOrEqual(0.95);
          expect(g.every((j) => (j.diagnostics as { contradictsObserved: boolean }).contradictsObserved === false)).toBe(true);
        } else {
          expect(score).toBeLessThanOrEqual(1.5);
          expect(match).toBeLessThanOrEqual(0.1);
        }
      }
    }
    // Coverage comes from the agent's calls (interactive) or the given examples (in-context).
    const oracleInteractive = rows.filter((r) => r.model === 'mock-oracle' && r.setting === 'interactive').map((r) => r.j);
    expect(oracleInteractive.every((j) => j.statementCoverage === 1)).toBe(true);
    const nullInteractive = rows.filter((r) => r.model === 'mock-null' && r.setting === 'interactive').map((r) => r.j);
    expect(nullInteractive.every((j) => j.statementCoverage === 0)).toBe(true);
    expect(nullInteractive.every((j) => (j.diagnostics as { underExplored: boolean }).underExplored === true)).toBe(true);
    // The null agent's code (returns None) contradicts what it was shown in context.
    const nullInContext = rows.filter((r) => r.model === 'mock-null' && r.setting === 'in-context').map((r) => r.j);
    expect(nullInContext.every((j) => (j.diagnostics as { contradictsObserved: boolean }).contradictsObserved === true)).toBe(true);
    // The control: the oracle coder writes the original from the gold description, so it agrees with every
    // observation; episodes without observations (the null agent, interactive) have no control.
    const controls = rows.map((r) => (r.j.diagnostics as { goldControl?: { checked: number | null; agrees: boolean | null } }).goldControl);
    const checked = controls.filter((c) => c?.checked != null);
    expect(checked.length).toBeGreaterThanOrEqual(SUBSET.length * 4);
    expect(checked.every((c) => c!.agrees === true)).toBe(true);
    expect(nullInteractive.every((j) => (j.diagnostics as { goldControl?: unknown }).goldControl === undefined)).toBe(true);
  }, 240_000);

  it('re-judges the stored run with another judge without re-running agents; the null judge is recorded unparsable', async () => {
    const before = await stack.db.select({ id: episodes.id, updatedAt: episodes.updatedAt }).from(episodes).where(eq(episodes.runId, runId));
    const r = await (await startJudgeRun(stack.client, { runId, judgeModel: 'mock-null' })).result();
    expect(r).toMatchObject({ judged: SUBSET.length * 6, failed: 0 });
    const rows = await judgedRows('mock-null');
    expect(rows).toHaveLength(SUBSET.length * 6);
    expect(rows.every((x) => x.j.unparsable === 1 && x.j.score === null && x.j.rationale?.includes('[retry]'))).toBe(true);
    // The null coder's gold code returns None: the control disagrees with the observed values.
    const controls = rows.map((x) => (x.j.diagnostics as { goldControl?: { agrees: boolean | null } }).goldControl).filter((c) => c?.agrees != null);
    expect(controls.length).toBeGreaterThan(0);
    expect(controls.every((c) => c!.agrees === false)).toBe(true);
    // The replay fixture of the branch with the control (an in-context episode: it has observations).
    const ic = await stack.db
      .select({ id: episodes.id })
      .from(episodes)
      .where(and(eq(episodes.runId, runId), eq(episodes.model, 'mock-oracle'), eq(episodes.setting, 'in-context')))
      .limit(1);
    await maybeRecordHistory(stack.client.workflow.getHandle(judgeEpisodeWorkflowId('mock-null', ic[0]!.id)), 'judgeEpisode-with-gold-control.json');
    // The first judge's rows are untouched; the episodes were not rerun.
    expect(await judgedRows('mock-oracle')).toHaveLength(SUBSET.length * 6);
    const after = await stack.db
      .select({ id: episodes.id, updatedAt: episodes.updatedAt })
      .from(episodes)
      .where(
        inArray(
          episodes.id,
          before.map((b) => b.id),
        ),
      );
    expect(after.map((a) => a.updatedAt.getTime()).sort()).toEqual(before.map((b) => b.updatedAt.getTime()).sort());
    // Judging again only judges what is missing.
    const again = await (await startJudgeRun(stack.client, { runId, judgeModel: 'mock-null' })).result();
    expect(again.judged).toBe(0);
  }, 180_000);

  it('`pau report` withholds scores until the judge has a card, then prints the headline with the oracle on top', async () => {
    const out = `${process.env.PAU_STATE_DIR}/reports`;
    const before = await runCli(['report', runId, '--judge-model', 'mock-oracle', '--out', out]);
    expect(before.code).toBe(0);
    expect(before.stdout).toContain('Scores withheld: no judge card for judge mock-oracle with code writer mock-oracle yet');
    expect(before.stdout).not.toMatch(/score \(1-5\)/);
    // The scripted judge's card on this fixture split (6 methods, so the method-count threshold is 6).
    const card = await runCli([
      'calibrate',
      'judge',
      '--judge',
      'mock-oracle',
      '--dataset',
      DATASET,
      '--split',
      'test',
      '--methods',
      '6',
      '--min-methods',
      '6',
    ]);
    expect(card.code, card.stdout + card.stderr).toBe(0);
    const r = await runCli(['report', runId, '--judge-model', 'mock-oracle', '--out', out]);
    console.log(r.stdout);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    const first = lines.findIndex((l) => /^-+\s/.test(l));
    expect(lines[first + 1]).toMatch(/^mock-oracle/);
    expect(r.stdout).toMatch(/mock-null\s+\S+\s+6\/6\s+0\s+1\.00/);
    expect(r.stdout).toMatch(/mock-random\s+interactive/);
  }, 180_000);

  it('with k programs per description (MBR-exec) the coder is asked k times, and the judgment records the choice and pays for all', async () => {
    const r = await (await startJudgeRun(stack.client, { runId, judgeModel: 'mock-random', config: { coderSamples: 3 } })).result();
    expect(r).toMatchObject({ judged: SUBSET.length * 6, failed: 0 });
    const rows = await judgedRows('mock-random');
    type Sampled = { coderSamples?: { k: number; chosen: number; agreement: (number | null)[]; codeMatch: (number | null)[] } };
    const sampled = rows.map((x) => (x.j.diagnostics as Sampled).coderSamples);
    // The scripted coder writes one program whatever the seed: the three agree everywhere, so the greedy one is kept.
    expect(sampled.every((c) => c?.k === 3 && c.chosen === 0 && new Set(c.agreement).size === 1)).toBe(true);
    expect(rows.every((x) => x.j.codeMatch === (x.j.diagnostics as Sampled).coderSamples!.codeMatch[0])).toBe(true);
    // Programs 1 and 2 were requested with their own keys (a request two episodes share is one ledger row,
    // keyed by whichever asked last, so the keys are counted over the run).
    const keys = await stack.db.select({ key: llmCalls.callKey }).from(llmCalls).where(like(llmCalls.callKey, 'judge/%/mock-random/code%'));
    const suffixes = new Set(keys.map((k) => /\/code(\/s\d)?$/.exec(k.key ?? '')?.[1] ?? ''));
    expect([...suffixes].sort()).toEqual(['', '/s1', '/s2']);
    const ic = await stack.db
      .select({ id: episodes.id })
      .from(episodes)
      .where(and(eq(episodes.runId, runId), eq(episodes.model, 'mock-oracle'), eq(episodes.setting, 'interactive')))
      .limit(1);
    await maybeRecordHistory(stack.client.workflow.getHandle(judgeEpisodeWorkflowId('mock-random', ic[0]!.id)), 'judgeEpisode-mbr-exec.json');
    // An out-of-range k is refused before any model call, naming the range.
    const bad = await startJudgeRun(stack.client, { runId, judgeModel: 'mock-random', force: true, config: { coderSamples: 0 } });
    const res = await bad.result();
    expect(res.failed).toBe(SUBSET.length * 6);
  }, 300_000);
});
