// Generated code that cannot run (issue 12 point 3): code that does not compile, or that defines no
// function of the method's name, scores code match 0 with the reason recorded; the description score is
// still recorded and the judge workflow does not fail. Before, the sandbox's SandboxBadRequest failed the
// judge workflow and the episode vanished from every metric.
//
// The code writer is the scripted mock with a policy that has no scripted coder behaviour (`malformed`): it
// answers with the method's gold description as text, so each fixture's gold carries the code block the
// "coder" returns (broken, misnamed, or correct as the control). The sandbox, Temporal and Postgres are real.
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { episodes, judgments } from '../../db/schema/runs';
import type { BenchmarkConfig } from '../../domain/bench/types';
import { codeFailure } from '../../domain/judge/diagnostics';
import { SandboxPool } from '../../activities/sandbox/index';
import { startBenchmark, startJudgeRun } from '../../scripts/client/starters';
import { doublingMethod, fixtureDataset } from '../fixtures/datasetRows';
import { useStack } from '../helpers/stack';

const DATASET = 'validity-code-failure';
const inputs = { probeInputs: ['3'], heldout: ['0', '5', '-2'] };
const METHODS = [
  doublingMethod('codefail/syntax', 'def f(x) return x * 2', inputs),
  doublingMethod('codefail/misnamed', 'def g(x):\n    return x * 2', inputs),
  doublingMethod('codefail/control', 'def f(x):\n    return x * 2', inputs),
];

const stack = useStack({ workers: ['pau', 'pau-sandbox'], timeoutMs: 180_000, setup: fixtureDataset(DATASET, METHODS) });

describe('generated code that cannot run', () => {
  it('the sandbox results tell a compile error and a missing entry point from code that runs', async () => {
    const pool = new SandboxPool({ size: 1 });
    try {
      const run = (source: string) => pool.runBatch({ source, entry: 'f', calls: ['1', '2'] });
      const broken = await run('def f(x) return x * 2\n');
      expect(codeFailure(broken.sourceError, broken.results)).toMatchObject({ kind: 'does-not-compile', message: expect.stringContaining('SyntaxError') });
      const misnamed = await run('def g(x):\n    return x * 2\n');
      expect(codeFailure(misnamed.sourceError, misnamed.results)).toMatchObject({ kind: 'no-entry-point' });
      // Code that runs and raises is behaviour, not a failure to run.
      const raising = await run('def f(x):\n    raise ValueError(x)\n');
      expect(codeFailure(raising.sourceError, raising.results)).toBeNull();
    } finally {
      await pool.close();
    }
  });

  it('scores code match 0 with the reason, records the description score, and fails no judge workflow', { timeout: 240_000 }, async () => {
    const runId = `codefail-${Date.now().toString(36)}`;
    const config: BenchmarkConfig = {
      dataset: DATASET,
      split: 'test',
      models: ['mock-oracle'],
      settings: ['interactive'],
      samples: 1,
      judgeModel: 'mock-oracle',
    };
    const bench = await (await startBenchmark(stack.client, runId, config)).result();
    expect(bench.totals.failed).toBe(0);
    // Judge again with the code writer that returns each fixture's code block.
    const r = await (await startJudgeRun(stack.client, { runId, judgeModel: 'mock-oracle', coderModel: 'mock-malformed', force: true })).result();
    expect(r).toMatchObject({ judged: 3, failed: 0 });
    const rows = await stack.db
      .select({ methodId: episodes.methodId, j: judgments })
      .from(judgments)
      .innerJoin(episodes, eq(episodes.id, judgments.episodeId))
      .where(and(eq(episodes.runId, runId), eq(judgments.judgeModel, 'mock-oracle')));
    const by = new Map(rows.map((x) => [x.methodId, x.j]));
    expect(by.size).toBe(3);
    const diag = (id: string) => by.get(id)!.diagnostics as { codeFailure?: { kind: string; message: string } | null; contradictsObserved: boolean | null };
    for (const id of ['codefail/syntax', 'codefail/misnamed']) {
      // The description score is recorded: the judge said yes beside the method (the three fixtures' golds are
      // near-identical, so the contrast format's second question says yes too and the specific yes is 0).
      expect(by.get(id)).toMatchObject({ codeMatch: 0, score: 1 });
      expect(by.get(id)!.scoreDetail).toMatchObject({ format: 'contrast', pYes: 1, pYesContrast: 1 });
      // A compile error is no contradiction of the observations: not checked.
      expect(diag(id).contradictsObserved).toBeNull();
    }
    expect(diag('codefail/syntax').codeFailure).toMatchObject({ kind: 'does-not-compile', message: expect.stringContaining('SyntaxError') });
    expect(by.get('codefail/syntax')!.generatedCode).toContain('def f(x) return');
    expect(diag('codefail/misnamed').codeFailure).toMatchObject({ kind: 'no-entry-point' });
    // The control: the same writer's correct code matches on every held-out input.
    expect(by.get('codefail/control')).toMatchObject({ codeMatch: 1 });
    expect(diag('codefail/control').codeFailure).toBeNull();
    expect(diag('codefail/control').contradictsObserved).toBe(false);
  });
});
