// Code match on the held-out inputs the agent never observed (issue 27, item 6), through the real judge
// path: a benchmark run with the scripted oracle agent (it calls its probe inputs; in context it is shown
// them first), judged again with a code writer that returns the code block carried in each fixture's gold
// description (the scripted `malformed` policy answers with the gold text, as in codeFailure.test.ts).
// One fixture's code is a lookup table of the probe inputs, which here are also held-out inputs: it
// scores on those and nothing on the held-out inputs the agent never saw. Sandbox, Temporal and Postgres
// are real; then the report's rows and headline read the stored figure, and so do the GRPO outcome reward
// and the SFT filter (a lookup table earns no code-match reward and is not kept).
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { episodes, judgments } from '../../db/schema/runs';
import { sftExamples } from '../../db/schema/training';
import { loadRolloutRows } from '../../db/queries/rolloutRows';
import { buildSftData } from '../../activities/training/sftData';
import { groupRollouts } from '../../domain/training/rolloutOutcome';
import type { BenchmarkConfig } from '../../domain/bench/types';
import type { EpisodeDiagnostics } from '../../domain/judge/diagnostics';
import { buildReport } from '../../db/queries/benchmarkReportData';
import { codeMatchRows } from '../../domain/report/summarize';
import { startBenchmark, startJudgeRun } from '../../scripts/client/starters';
import { doublingMethod, fixtureDataset } from '../fixtures/datasetRows';
import { useStack } from '../helpers/stack';

const DATASET = 'validity-unseen-code-match';
// The probe inputs 3 and 5 are also held-out inputs: what an interactive agent calling 0, 1, -1 does by chance.
const inputs = { probeInputs: ['3', '5'], heldout: ['3', '5', '7', '-2'] };
const METHODS = [
  doublingMethod('unseen/lookup', 'def f(x):\n    return {3: 6, 5: 10}.get(x)', inputs),
  doublingMethod('unseen/control', 'def f(x):\n    return x * 2', inputs),
];

const stack = useStack({ workers: ['pau', 'pau-sandbox'], timeoutMs: 180_000, setup: fixtureDataset(DATASET, METHODS) });

describe('code match on unseen held-out inputs', () => {
  it('a lookup table of the observed calls scores on them and 0 on the inputs the agent never saw, in both settings', { timeout: 240_000 }, async () => {
    const runId = `unseen-${Date.now().toString(36)}`;
    const config: BenchmarkConfig = {
      dataset: DATASET,
      split: 'test',
      models: ['mock-oracle'],
      settings: ['interactive', 'in-context'],
      samples: 1,
      judgeModel: 'mock-oracle',
    };
    const bench = await (await startBenchmark(stack.client, runId, config)).result();
    expect(bench.totals.failed).toBe(0);
    const r = await (await startJudgeRun(stack.client, { runId, judgeModel: 'mock-oracle', coderModel: 'mock-malformed', force: true })).result();
    expect(r).toMatchObject({ judged: 4, failed: 0 });
    const rows = await stack.db
      .select({ methodId: episodes.methodId, setting: episodes.setting, j: judgments })
      .from(judgments)
      .innerJoin(episodes, eq(episodes.id, judgments.episodeId))
      .where(and(eq(episodes.runId, runId), eq(judgments.judgeModel, 'mock-oracle')));
    expect(rows).toHaveLength(4);
    for (const x of rows) {
      const d = x.j.diagnostics as EpisodeDiagnostics;
      // Held-out 3 and 5 were observed (called, or shown as examples); 7 and -2 were not.
      expect(d.heldout, `${x.methodId} ${x.setting}`).toEqual({ given: 0, generated: 4, counted: 4, unobserved: 2 });
      if (x.methodId === 'unseen/lookup') {
        expect(x.j.codeMatch).toBe(0.5);
        expect(d.codeMatchUnobserved).toBe(0);
      } else {
        expect(x.j.codeMatch).toBe(1);
        expect(d.codeMatchUnobserved).toBe(1);
      }
    }

    // The report reads it per episode and puts it in the headline; the all-inputs figure is secondary.
    const doc = await buildReport({ runId, db: stack.db, judgeModel: 'mock-oracle', bootstrap: { resamples: 200 } });
    expect(doc.episodes.find((e) => e.methodId === 'unseen/lookup')?.codeMatchUnobserved).toBe(0);
    for (const g of doc.summary.groups) {
      expect(g.metrics.codeMatchUnobserved.mean).toBe(0.5);
      expect(g.metrics.codeMatch.mean).toBe(0.75);
      expect(g.heldout).toEqual({ counted: 8, unobserved: 4 });
    }
    // The secondary table (shown whenever the code writer may be: the judge card decides, not this test).
    const t = codeMatchRows(doc.summary);
    expect(t.headers).toEqual(['model', 'setting', 'code match (unseen)', 'code match (all inputs)', 'held-out inputs unseen']);
    expect(t.rows.find((r) => r[1] === 'interactive')).toEqual(['mock-oracle', 'interactive', '50.0% [0.0%, 100.0%]', '75.0% [50.0%, 100.0%]', '4/8']);

    // The GRPO outcome reward (score + weight x code match) reads the same stored figure: the lookup table
    // earns its score alone, although it matches half of all held-out inputs; the control earns score + 1.
    const rollouts = await loadRolloutRows(stack.db, runId, 'mock-oracle', null);
    const rewarded = groupRollouts(rollouts, 1).rollouts;
    expect(rewarded).toHaveLength(4);
    for (const r of rewarded) {
      expect(r.row.score, r.row.episodeId).not.toBeNull();
      const bonus = r.row.methodId === 'unseen/lookup' ? 0 : 1;
      expect(r.verdict, r.row.episodeId).toEqual({ kind: 'judged', reward: r.row.score! + bonus });
    }

    // The SFT filter too: at --min-code-match 0.5 the lookup table (0.5 on all inputs, 0 on unseen) is dropped.
    const name = `${runId}-sft`;
    const summary = await buildSftData(
      stack.db,
      {
        name,
        dataset: DATASET,
        split: 'test',
        teacher: 'mock-oracle',
        judgeModel: 'mock-oracle',
        settings: ['interactive', 'in-context'],
        samples: 1,
        minScore: 1,
        minCodeMatch: 0.5,
        dropContradicting: false,
      },
      runId,
    );
    expect(summary).toMatchObject({ episodes: 4, kept: 2, dropped: { code_match_below_min: 2 } });
    const kept = await stack.db
      .select({ episodeId: sftExamples.episodeId, methodId: sftExamples.methodId })
      .from(sftExamples)
      .where(eq(sftExamples.runId, runId));
    expect(kept.map((k) => k.methodId).sort()).toEqual(['unseen/control', 'unseen/control']);
  });
});
