// The execution critic's rules on hand-made evidence (domain/training/execCritic.ts): which alternatives
// survive the calls so far, what a step rules out, the formula, the cache key, and the figures of unrated
// rollouts. The sandbox side: test/training/execCritic.test.ts.
import { describe, expect, it } from 'vitest';
import type { Coverage, Outcome } from '../../domain/sandbox/schemas';
import {
  contradicts,
  coverageTerm,
  EXEC_WEIGHTS,
  type ExecAlternative,
  type ExecEvidence,
  execRationale,
  execReward,
  execStepKey,
  execStepRatings,
  isExecCritic,
  ruledOutTerm,
  survivors,
  unratedSteps,
} from '../../domain/training/execCritic';
import { criticUnratedFigures } from '../../domain/training/grpo';
import { explorationSteps } from '../../domain/training/grpoRollouts';

const int = (v: number): Outcome => ({ ok: true, value: v, repr: String(v) });
const raised = (type: string, message = ''): Outcome => ({ ok: false, error: { type, message } });
const alt = (id: string, outcomes: Record<string, Outcome>): ExecAlternative => ({ id, outcomes: new Map(Object.entries(outcomes)) });

/** Coverage of a 4-statement method with 2 branch arcs, these statements and arcs hit. */
function cov(lines: number[], arcs: [number, number][]): Coverage {
  const all = [1, 2, 3, 4];
  const branchArcs: [number, number][] = [
    [2, 3],
    [2, 4],
  ];
  return {
    lines: { hit: lines.length, total: 4 },
    branches: { hit: arcs.length, total: 2 },
    missingLines: all.filter((l) => !lines.includes(l)),
    missingBranchArcs: branchArcs.filter(([a, b]) => !arcs.some(([x, y]) => x === a && y === b)),
    executedArcs: arcs,
  };
}

// The method: add(a, b). Its alternatives: a - b, the constant 3, the identity (returns a).
const METHOD = new Map<string, Outcome>([
  ['1, 2', int(3)],
  ['2, 0', int(2)],
  ['5, 5', int(10)],
]);
const SUB = alt('operator swap @ line 2', { '1, 2': int(-1), '2, 0': int(2), '5, 5': int(0) });
const THREE = alt('constant @ 3', { '1, 2': int(3), '2, 0': int(3), '5, 5': int(3) });
const IDENTITY = alt('identity @ first argument', { '1, 2': int(1), '2, 0': int(2), '5, 5': int(5) });
const ALTERNATIVES = [SUB, THREE, IDENTITY];

describe('the execution critic: who survives the calls so far', () => {
  it('an alternative survives while no call contradicts it; the order and repeats of calls do not matter', () => {
    const e = { method: METHOD, alternatives: ALTERNATIVES };
    expect(survivors(e, []).map((a) => a.id)).toEqual(ALTERNATIVES.map((a) => a.id));
    expect(survivors(e, ['2, 0']).map((a) => a.id)).toEqual([SUB.id, IDENTITY.id]); // 2 + 0 = 2 - 0 = 2; not 3
    expect(survivors(e, ['1, 2']).map((a) => a.id)).toEqual([THREE.id]);
    expect(survivors(e, ['1, 2', '2, 0', '1, 2'])).toEqual([]);
    expect(survivors(e, ['2, 0', '1, 2'])).toEqual(survivors(e, ['1, 2', '2, 0']));
  });

  it('a contradiction is a different value or exception; a limit or an unrun call of the method contradicts nothing', () => {
    expect(contradicts(int(3), int(3))).toBe(false);
    expect(contradicts(int(3), int(4))).toBe(true);
    expect(contradicts(int(3), raised('TypeError'))).toBe(true);
    expect(contradicts(raised('ValueError', 'b is 0'), raised('ValueError', 'other words'))).toBe(false); // types, as code match
    expect(contradicts(raised('ValueError'), raised('ZeroDivisionError'))).toBe(true);
    expect(contradicts({ ok: true, value: 1, repr: '1' }, { ok: true, value: { float: 1 }, repr: '1.0' })).toBe(true); // 1 is not 1.0
    // The method hit a limit: nothing is known of it there.
    expect(contradicts(raised('Timeout'), int(3))).toBe(false);
    expect(contradicts(raised('BadArguments'), int(3))).toBe(false);
    // The alternative ran past a limit where the method returned: it does not do what the method did.
    expect(contradicts(int(3), raised('Timeout'))).toBe(true);
    // The sandbox could not run the alternative: no evidence against it.
    expect(contradicts(int(3), raised('SandboxError'))).toBe(false);
    expect(contradicts(int(3), undefined)).toBe(false);
  });
});

describe('the execution critic: the formula', () => {
  it('the information term is the step share of log(N + 1): 0 for nothing ruled out, and a rollout sums to at most 1', () => {
    expect(ruledOutTerm(10, 10, 0)).toBe(0);
    expect(ruledOutTerm(0, 0, 0)).toBe(0);
    expect(ruledOutTerm(10, 10, 10)).toBeCloseTo(1, 12);
    // Ruling out 4 of 10, then the other 6: the two steps' terms add up to 1.
    expect(ruledOutTerm(10, 10, 4) + ruledOutTerm(10, 6, 6)).toBeCloseTo(1, 12);
    // The last survivor is worth as much as the half of a larger set that left it standing with the method.
    expect(ruledOutTerm(3, 1, 1)).toBeCloseTo(Math.log(2) / Math.log(4), 12);
    expect(ruledOutTerm(3, 3, 2)).toBeCloseTo(ruledOutTerm(3, 1, 1), 12);
  });

  it('the coverage term is the share of statements and branch arcs first reached; the weights are 0.7 and 0.3', () => {
    expect(coverageTerm({ statements: 0, branches: 0 }, { statements: 4, branches: 2 })).toBe(0);
    expect(coverageTerm({ statements: 2, branches: 1 }, { statements: 4, branches: 2 })).toBe(0.5);
    expect(coverageTerm({ statements: 0, branches: 0 }, { statements: 0, branches: 0 })).toBe(0);
    expect(EXEC_WEIGHTS.ruledOut + EXEC_WEIGHTS.coverage).toBe(1);
    expect(execReward(0, 0)).toBe(0);
    expect(execReward(1, 1)).toBe(1);
    expect(execReward(0.5, 0)).toBe(0.35);
    expect(execReward(0, 0.5)).toBe(0.15);
  });

  it('each step of a rollout: a repeated call earns 0, a call that rules out an alternative earns more than 0', () => {
    const evidence: ExecEvidence = {
      method: METHOD,
      alternatives: ALTERNATIVES,
      // step 0 reaches statements 1, 2, 4 and arc 2->4; step 2 reaches statement 3 and arc 2->3; step 3 nothing new.
      coverage: [cov([1, 2, 4], [[2, 4]]), null, cov([1, 2, 3], [[2, 3]]), cov([1, 2, 4], [[2, 4]])],
    };
    const r = execStepRatings([['1, 2'], ['1, 2'], ['2, 0'], ['5, 5']], evidence);
    // 1 + 2: 3 rules out a - b (-1) and the identity (1); the constant 3 survives.
    expect(r[0]).toMatchObject({ alternatives: 3, survivorsBefore: 3, ruledOut: 2, ruledOutIds: [SUB.id, IDENTITY.id] });
    expect(r[0]!.coverageAdded).toEqual({ statements: 3, branches: 1 });
    expect(r[0]!.reward).toBeCloseTo(0.7 * (Math.log(4 / 2) / Math.log(4)) + 0.3 * (4 / 6), 6);
    // The same call again: nothing left to rule out, nothing new covered.
    expect(r[1]).toMatchObject({ reward: 0, survivorsBefore: 1, ruledOut: 0, coverageAdded: { statements: 0, branches: 0 } });
    // 2 + 0 = 2 rules out the constant 3 (the last survivor) and reaches the other branch.
    expect(r[2]).toMatchObject({ survivorsBefore: 1, ruledOut: 1, ruledOutIds: [THREE.id], coverageAdded: { statements: 1, branches: 1 } });
    expect(r[2]!.reward).toBeCloseTo(0.7 * (Math.log(2) / Math.log(4)) + 0.3 * (2 / 6), 6);
    // A new input that shows nothing new: no survivor left, no new statement: 0.
    expect(r[3]).toMatchObject({ reward: 0, survivorsBefore: 0, ruledOut: 0 });
    // The information terms add up to 1 (every alternative ruled out), the coverage terms to the share covered.
    const total = r.reduce((a, s) => a + (s.reward ?? 0), 0);
    expect(total).toBeCloseTo(0.7 + 0.3, 6);
    expect(r.every((s) => s.reward !== null && s.reward >= 0 && s.reward <= 1)).toBe(true);
  });

  it('a step with no call that ran (rejected ones only) earns 0; the evidence must cover every step', () => {
    const r = execStepRatings([[], ['2, 0']], { method: METHOD, alternatives: ALTERNATIVES, coverage: [null, cov([1, 2], [])] });
    expect(r[0]).toMatchObject({ reward: 0, survivorsBefore: 3, ruledOut: 0 });
    expect(r[1]).toMatchObject({ ruledOut: 1, ruledOutIds: [THREE.id] });
    expect(() => execStepRatings([['1, 2']], { method: METHOD, alternatives: ALTERNATIVES, coverage: [] })).toThrow(/1 steps but 0 coverages/);
  });

  it('unrated steps carry the reason, into the rationale and the epoch figures (the rollouts all unrated, by reason)', () => {
    const u = unratedSteps(2, "the method's code fails on import: NameError: name 'x' is not defined");
    expect(u.map((s) => s.reward)).toEqual([null, null]);
    expect(execRationale(u[0]!)).toBe("exec-v1: unrated: the method's code fails on import: NameError: name 'x' is not defined");
    const rated = execStepRatings([['1, 2']], { method: METHOD, alternatives: ALTERNATIVES, coverage: [cov([1, 2, 4], [[2, 4]])] })[0]!;
    expect(execRationale(rated)).toMatch(/^exec-v1: reward 0\.\d+: ruled out 2 of 3 surviving alternatives \(3 in all\) \(operator swap @ line 2; identity/);
    expect(execRationale(rated)).toContain('first covered 3 of 4 statements and 1 of 2 branch arcs');
    expect(
      criticUnratedFigures([
        { rated: 2, unrated: 2, unratedReason: 'fails on import' },
        { rated: 3, unrated: 3, unratedReason: 'fails on import' },
        { rated: 2, unrated: 1, unratedReason: 'partly' },
        { rated: 0 },
        { rated: 4 },
      ]),
    ).toEqual({ criticUnrated: { rollouts: 2, reasons: { 'fails on import': 2 } } });
    expect(criticUnratedFigures([{ rated: 2 }])).toEqual({});
  });
});

describe('the execution critic: names and keys', () => {
  it('`exec` is the execution critic; a model name is not', () => {
    expect(isExecCritic('exec')).toBe(true);
    expect(isExecCritic('local/qwen2.5-coder-0.5b')).toBe(false);
  });

  it('a step key is the method, the earlier calls and the step calls, each as a set', () => {
    const m = { code: 'def add(a, b):\n    return a + b\n', entry: 'add', constants: ['3'], generator: 'def critic_hypotheses(): ...' };
    const k = execStepKey(m, ['1, 2', '2, 0'], ['5, 5']);
    expect(k).toMatch(/^[0-9a-f]{64}$/);
    expect(execStepKey(m, ['2, 0', '1, 2', '2, 0'], ['5, 5', '5, 5'])).toBe(k);
    expect(execStepKey(m, ['1, 2'], ['2, 0', '5, 5'])).not.toBe(k);
    expect(execStepKey({ ...m, code: 'def add(a, b):\n    return b + a\n' }, ['1, 2', '2, 0'], ['5, 5'])).not.toBe(k);
    expect(execStepKey({ ...m, generator: 'changed' }, ['1, 2', '2, 0'], ['5, 5'])).not.toBe(k);
    expect(execStepKey({ ...m, constants: [] }, ['1, 2', '2, 0'], ['5, 5'])).not.toBe(k);
  });

  it('the calls a step ran are read from the stored steps (rejected calls are not)', () => {
    const ex = explorationSteps(
      [
        { idx: 0, kind: 'assistant', call: null, observation: null },
        {
          idx: 1,
          kind: 'call',
          call: { arguments: '1, 2' },
          observation: { text: '3', executed: true, result: { ok: true, value: 3, repr: '3', stdout: '', ms: 1 } },
        },
        {
          idx: 2,
          kind: 'call',
          call: { arguments: "1, 'x'" },
          observation: { text: 'TypeError', executed: true, result: { ok: false, error: { type: 'TypeError', message: '' }, stdout: '', ms: 1 } },
        },
        { idx: 3, kind: 'assistant', call: null, observation: null },
        { idx: 4, kind: 'call', call: { arguments: '1, 2, 3, 4, 5' }, observation: { text: 'over budget', executed: false } },
        { idx: 5, kind: 'problem', call: { raw: 'add(' }, observation: { text: 'malformed', executed: false } },
      ],
      'add',
    );
    expect(ex.map((s) => s.ran)).toEqual([['1, 2', "1, 'x'"], []]);
  });
});
