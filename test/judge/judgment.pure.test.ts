// A judgment from its plan, verdict, code and sandbox runs (domain/judge/judgment.ts): the row and the
// diagnostics it stores, on every branch: a full judgment, a method excluded from code match, code that
// does not compile or has no entry point, no code, the gold control present or absent, contradictions,
// coverage and the share of held-out inputs the agent never saw.
import { describe, expect, it } from 'vitest';
import { resolveJudgeConfig } from '../../domain/judge/config';
import { coverageShares, judgeCost, judgmentOf, type JudgmentInput } from '../../domain/judge/judgment';
import type { ObservedCall } from '../../domain/episode/observedCalls';
import type { CallResult, Coverage } from '../../domain/sandbox/schemas';
import type { JudgePlan } from '../../domain/judge/types';

const ok = (v: number): CallResult => ({ ok: true, value: v, repr: String(v), stdout: '', ms: 1 });
const err = (type: string, message = ''): CallResult => ({ ok: false, error: { type, message }, stdout: '', ms: 1 });
const seen = (idx: number, args: string, result: CallResult): ObservedCall => ({
  idx,
  source: 'call',
  arguments: args,
  ok: result.ok,
  text: result.ok ? result.repr : result.error.type,
  category: '',
  result,
});

// f(a, b) = a + b. Held out: two given inputs, two generated (the second raises, so it does not count for
// mutated inputs); the agent called `1, 2` (a held-out input) and `2, 2`.
const config = { ...resolveJudgeConfig({ episodeId: 'e1' }, { judgeModel: 'judge-m', coderModel: 'coder-m' }), judgeParams: { temperature: 0 } };
const plan: JudgePlan = {
  episodeId: 'e1',
  methodId: 'm1',
  config,
  source: 'def f(a, b): return a + b',
  entryPoint: 'f',
  observedArgs: ['1, 2', '2, 2'],
  heldoutGiven: ['1, 2', '3, 4'],
  heldoutGenerated: ['5, 6', "'x', 1"],
  heldoutRaisingCounts: false,
};
const original = [ok(3), ok(7), ok(11), err('TypeError', 'can only concatenate')];
const observed = [seen(0, '1, 2', ok(3)), seen(1, '2,2', ok(4))];
const coverage: Coverage = { lines: { hit: 3, total: 4 }, branches: { hit: 1, total: 2 }, missingLines: [], missingBranchArcs: [], executedArcs: [] };
const verdict = { score: 4.2, unparsable: false, rationale: 'close', tokensIn: 10, tokensOut: 2, costUsd: 0.25, neutralised: { lines: 1, tags: 0 } };
const generated = { code: 'def f(a, b): return a + b if a < 5 else 0', tokensIn: 20, tokensOut: 30, costUsd: 0.5 };
// Right on 1,2 and 3,4, wrong on 5,6 (0, not 11); on the observed inputs right on 1,2, wrong on 2,2.
const candidate = [ok(3), ok(7), ok(0), err('TypeError', 'x'), ok(3), ok(5)];
const contradiction = {
  verdict: 'contradicts' as const,
  cited: [{ n: 2, arguments: '2,2', observation: '4' }],
  observations: 2,
  rationale: 'r'.repeat(5000),
  tokensIn: 5,
  tokensOut: 6,
  costUsd: 0.125,
};
const gold = { generated: { code: 'def f(a, b): return a + b', tokensIn: 7, tokensOut: 8, costUsd: 0.0625 }, results: [ok(3), ok(4)], sourceError: null };
const full: JudgmentInput = { plan, verdict, generated, original, candidate, candidateSourceError: null, coverage, contradiction, gold };

describe('a judgment', () => {
  it('stores code match, the unseen-inputs share, contradictions, coverage, the controls and the cost', () => {
    const { row, result } = judgmentOf(full, observed);
    expect(row).toEqual({
      episodeId: 'e1',
      judgeModel: 'judge-m',
      score: 4.2,
      scoreDetail: null,
      unparsable: 0,
      rationale: 'close',
      generatedCode: generated.code,
      codeMatch: 2 / 3,
      statementCoverage: 0.75,
      branchCoverage: 0.5,
      diagnostics: {
        calls: 2,
        distinctCalls: 2,
        repeatedCalls: 0,
        errors: 0,
        agentErrors: 0,
        observedChecked: 2,
        contradictions: 1,
        contradictsObserved: true,
        underExplored: true,
        underExploredThreshold: 0.75,
        unparsable: false,
        neutralisedLines: 1,
        neutralisedTags: 0,
        noCode: false,
        codeFailure: null,
        heldout: { given: 2, generated: 2, counted: 3, unobserved: 2 },
        codeMatchUnobserved: 0.5,
        heldoutDisagreements: [{ input: '5, 6', expected: '11', got: '0' }],
        coderModel: 'coder-m',
        requestParams: { judge: { temperature: 0 }, coder: null },
        contradiction: { verdict: 'contradicts', cited: contradiction.cited, observations: 2, rationale: 'r'.repeat(4000) },
        goldControl: { checked: 2, contradictions: 0, agrees: true },
        judgeCost: { tokensIn: 42, tokensOut: 46, costUsd: 0.9375 },
      },
    });
    expect(Object.keys(row.diagnostics)).not.toContain('codeMatchExcluded');
    expect(result).toEqual({
      episodeId: 'e1',
      judgeModel: 'judge-m',
      score: 4.2,
      unparsable: false,
      codeMatch: 2 / 3,
      statementCoverage: 0.75,
      branchCoverage: 0.5,
      contradictsObserved: true,
    });
  });

  it('an unparsable verdict is stored as 1, with its score detail', () => {
    const detail = { method: 'samples', expected: null, samples: 3, parsed: 0 } as never;
    const { row } = judgmentOf({ ...full, verdict: { ...verdict, score: null, unparsable: true, scoreDetail: detail } }, observed);
    expect([row.score, row.unparsable, row.scoreDetail, row.diagnostics.unparsable]).toEqual([null, 1, detail, true]);
  });

  it('a method the dataset excluded has no code match on either set, the reason recorded; its code is still checked', () => {
    const { row, result } = judgmentOf({ ...full, plan: { ...plan, codeMatchExcluded: 'one distinct outcome' } }, observed);
    expect([row.codeMatch, row.diagnostics.codeMatchUnobserved, result.codeMatch]).toEqual([null, null, null]);
    expect(row.diagnostics.codeMatchExcluded).toBe('one distinct outcome');
    expect([row.diagnostics.observedChecked, row.diagnostics.contradictsObserved]).toEqual([2, true]);
  });

  it('code that does not compile matches nothing and is not checked against the observations', () => {
    const failed = Array.from({ length: 6 }, () => err('SyntaxError', 'invalid syntax'));
    const { row, result } = judgmentOf({ ...full, candidate: failed, candidateSourceError: { type: 'SyntaxError', message: 'invalid syntax' } }, observed);
    expect([row.codeMatch, row.diagnostics.codeMatchUnobserved]).toEqual([0, 0]);
    expect(row.diagnostics.codeFailure).toEqual({ kind: 'does-not-compile', message: 'SyntaxError: invalid syntax' });
    expect([row.diagnostics.observedChecked, row.diagnostics.contradictions, result.contradictsObserved]).toEqual([null, null, null]);
    expect(row.diagnostics.noCode).toBe(false);
  });

  it('code without the entry point is a code failure of its own kind', () => {
    const missing = Array.from({ length: 6 }, () => err('EntryNotFound', "no function 'f'"));
    const { row } = judgmentOf({ ...full, candidate: missing }, observed);
    expect(row.diagnostics.codeFailure).toEqual({ kind: 'no-entry-point', message: "EntryNotFound: no function 'f'" });
    expect([row.codeMatch, row.diagnostics.contradictsObserved]).toEqual([0, null]);
  });

  it('no code: code match 0, nothing checked, the disagreements say so', () => {
    const { row } = judgmentOf({ ...full, generated: { ...generated, code: null }, candidate: null }, observed);
    expect([row.codeMatch, row.generatedCode, row.diagnostics.noCode, row.diagnostics.codeFailure]).toEqual([0, null, true, null]);
    expect([row.diagnostics.observedChecked, row.diagnostics.contradictsObserved]).toEqual([null, null]);
    expect(row.diagnostics.heldoutDisagreements).toEqual([
      { input: '1, 2', expected: '3', got: '(no code)' },
      { input: '3, 4', expected: '7', got: '(no code)' },
      { input: '5, 6', expected: '11', got: '(no code)' },
    ]);
  });

  it('code that agrees with every observation contradicts none', () => {
    const right = [ok(3), ok(7), ok(11), err('TypeError'), ok(3), ok(4)];
    const { row } = judgmentOf({ ...full, candidate: right }, observed);
    expect([row.codeMatch, row.diagnostics.observedChecked, row.diagnostics.contradictions, row.diagnostics.contradictsObserved]).toEqual([1, 2, 0, false]);
    expect(row.diagnostics.heldoutDisagreements).toEqual([]);
  });

  it('without the classifier and the gold control (histories from before them), neither is stored nor costed', () => {
    const { contradiction: _c, gold: _g, ...older } = full;
    const { row } = judgmentOf(older, observed);
    expect(Object.keys(row.diagnostics)).not.toContain('goldControl');
    expect(Object.keys(row.diagnostics)).not.toContain('contradiction');
    expect(row.diagnostics.judgeCost).toEqual({ tokensIn: 30, tokensOut: 32, costUsd: 0.75 });
  });

  it('the gold control says why nothing was checked: no gold description, code that failed', () => {
    const noGold = { generated: { code: null, noGold: true, tokensIn: 0, tokensOut: 0, costUsd: 0 }, results: null, sourceError: null };
    expect(judgmentOf({ ...full, gold: noGold }, observed).row.diagnostics.goldControl).toMatchObject({ checked: null, reason: 'no-gold-description' });
    const broken = { ...gold, results: [err('SyntaxError'), err('SyntaxError')], sourceError: { type: 'SyntaxError', message: 'bad' } };
    expect(judgmentOf({ ...full, gold: broken }, observed).row.diagnostics.goldControl).toMatchObject({ checked: null, reason: 'code-failed' });
    const wrong = { ...gold, results: [ok(3), ok(5)] };
    expect(judgmentOf({ ...full, gold: wrong }, observed).row.diagnostics.goldControl).toEqual({ checked: 2, contradictions: 1, agrees: false });
  });

  it('the unseen-inputs share leaves out every held-out input the agent observed; none left: null', () => {
    const all = [seen(0, '1,2', ok(3)), seen(1, '3, 4', ok(7)), seen(2, '5 , 6', ok(11))];
    const three = [ok(3), ok(7), ok(0), err('TypeError'), ok(3), ok(7), ok(0)];
    const { row } = judgmentOf({ ...full, plan: { ...plan, observedArgs: ['1,2', '3, 4', '5 , 6'] }, candidate: three }, all);
    expect(row.diagnostics.heldout).toEqual({ given: 2, generated: 2, counted: 3, unobserved: 0 });
    expect([row.codeMatch, row.diagnostics.codeMatchUnobserved]).toEqual([2 / 3, null]);
  });

  it('generated inputs that raise count when the dataset typed them', () => {
    const { row } = judgmentOf({ ...full, plan: { ...plan, heldoutRaisingCounts: true } }, observed);
    expect(row.diagnostics.heldout).toMatchObject({ counted: 4, unobserved: 3 });
    expect([row.codeMatch, row.diagnostics.codeMatchUnobserved]).toEqual([3 / 4, 2 / 3]);
  });

  it('an agent that observed nothing: coverage 0, under-explored, nothing to contradict', () => {
    const { row } = judgmentOf({ ...full, plan: { ...plan, observedArgs: [] }, candidate: candidate.slice(0, 4), coverage: null }, []);
    expect([row.statementCoverage, row.branchCoverage, row.diagnostics.underExplored]).toEqual([0, 0, true]);
    expect([row.diagnostics.calls, row.diagnostics.observedChecked, row.diagnostics.contradictsObserved]).toEqual([0, 0, false]);
    expect(row.diagnostics.heldout).toMatchObject({ counted: 3, unobserved: 3 });
  });
});

describe('k programs per description (MBR-exec)', () => {
  // Program 0 is the one of the full judgment (right on 2 of 3 counted inputs); programs 1 and 2 agree with
  // each other on all four held-out inputs (and so with the original on 3 of 3); program 3 does not compile
  // (code match 0, as for a single program).
  const right = { code: 'def f(a, b): return a + b', tokensIn: 20, tokensOut: 10, costUsd: 0.25 };
  const rightRun = [ok(3), ok(7), ok(11), err('TypeError', 'y'), ok(3), ok(4)];
  const broken = { code: 'def f(a, b) return', tokensIn: 20, tokensOut: 5, costUsd: 0.25 };
  const failed = Array.from({ length: 6 }, () => err('SyntaxError', 'invalid syntax'));
  const samples = [
    { generated, candidate, candidateSourceError: null },
    { generated: right, candidate: rightRun, candidateSourceError: null },
    { generated: right, candidate: rightRun, candidateSourceError: null },
    { generated: broken, candidate: failed, candidateSourceError: { type: 'SyntaxError', message: 'invalid syntax' } },
  ];

  it('judges the program the others agree with on the held-out inputs, records every program and pays for all', () => {
    const { row, result } = judgmentOf({ ...full, samples }, observed);
    expect([row.generatedCode, row.codeMatch, result.codeMatch, row.diagnostics.codeMatchUnobserved]).toEqual([right.code, 1, 1, 1]);
    // Agreement on the 4 held-out inputs only: program 0 shares 1,2 / 3,4 / the TypeError with 1 and 2 (3 each).
    expect(row.diagnostics.coderSamples).toEqual({ k: 4, chosen: 1, agreement: [6, 7, 7, null], codeMatch: [2 / 3, 1, 1, 0] });
    // The chosen program's run is the one checked against the observations (2,2 -> 4: no contradiction).
    expect([row.diagnostics.contradictions, row.diagnostics.codeFailure]).toEqual([0, null]);
    expect(row.diagnostics.judgeCost).toEqual({
      tokensIn: 10 + 20 * 4 + 5 + 7,
      tokensOut: 2 + 30 + 10 + 10 + 5 + 6 + 8,
      costUsd: 0.25 + 0.5 + 0.75 + 0.125 + 0.0625,
    });
  });

  it('one program (or none given) is the judgment it always was, with no record', () => {
    const one = judgmentOf({ ...full, samples: [samples[0]!] }, observed).row;
    expect(one).toEqual(judgmentOf(full, observed).row);
    expect(Object.keys(one.diagnostics)).not.toContain('coderSamples');
  });

  it('when every program fails to compile, program 0 is judged (0, its failure recorded)', () => {
    const allBroken = [samples[3]!, samples[3]!, samples[3]!];
    const { row } = judgmentOf(
      { ...full, generated: broken, candidate: failed, candidateSourceError: samples[3]!.candidateSourceError, samples: allBroken },
      observed,
    );
    expect([row.codeMatch, row.diagnostics.codeFailure?.kind]).toEqual([0, 'does-not-compile']);
    expect(row.diagnostics.coderSamples).toMatchObject({ chosen: 0, agreement: [null, null, null], codeMatch: [0, 0, 0] });
  });
});

describe('coverage shares and the judge cost', () => {
  it('branch coverage falls back to statements on a method without branches; none measured: null', () => {
    expect(coverageShares({ ...coverage, branches: { hit: 0, total: 0 } }, 2)).toEqual({ statementCoverage: 0.75, branchCoverage: 0.75 });
    expect(coverageShares(null, 2)).toEqual({ statementCoverage: null, branchCoverage: null });
    expect(coverageShares({ ...coverage, lines: { hit: 0, total: 0 } }, 2)).toEqual({ statementCoverage: null, branchCoverage: 0.5 });
    expect(coverageShares(null, 0)).toEqual({ statementCoverage: 0, branchCoverage: 0 });
    expect(judgmentOf({ ...full, coverage: null }, observed).row.diagnostics.underExplored).toBeNull();
  });

  it('sums the verdict, the code, the classifier and the gold code', () => {
    expect(judgeCost(full)).toEqual({ tokensIn: 42, tokensOut: 46, costUsd: 0.9375 });
    expect(judgeCost({ verdict, generated })).toEqual({ tokensIn: 30, tokensOut: 32, costUsd: 0.75 });
  });
});
