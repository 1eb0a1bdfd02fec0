import { describe, expect, it } from 'vitest';
import { contradictions, explorationCounts, goldControl, isEvidence, underExplored, type Observation } from '../../domain/judge/diagnostics';
import type { EncodedValue } from '../../domain/python/codec';

const ok = (value: EncodedValue): Observation['result'] => ({ ok: true, value });
const err = (type: string, message = ''): Observation['result'] => ({ ok: false, error: { type, message } });

describe('the gold-description control of the contradiction check', () => {
  const observed: Observation[] = [
    { arguments: '1, 2', result: ok(3) },
    { arguments: '2, 2', result: ok(4) },
    { arguments: '1, 0', result: err('ZeroDivisionError') },
  ];
  const run = (...values: (EncodedValue | undefined)[]) => values.map((v) => (v === undefined ? undefined : { ok: true as const, value: v }));

  it('agrees when the gold code reproduces every returned value, and counts the disagreements otherwise', () => {
    expect(goldControl(observed, { hasGold: true, code: 'def f(a, b): ...', results: run(3, 4, 0), failed: null })).toEqual({
      checked: 2,
      contradictions: 0,
      agrees: true,
    });
    expect(goldControl(observed, { hasGold: true, code: 'def f(a, b): ...', results: run(3, 5, 0), failed: null })).toEqual({
      checked: 2,
      contradictions: 1,
      agrees: false,
    });
  });

  it('says why nothing was checked: no gold description, no code, code that did not run, no observed value', () => {
    const failed = { kind: 'does-not-compile' as const, message: 'SyntaxError' };
    expect(goldControl(observed, { hasGold: false, code: null, results: null, failed: null }).reason).toBe('no-gold-description');
    expect(goldControl(observed, { hasGold: true, code: null, results: null, failed: null }).reason).toBe('no-code');
    expect(goldControl(observed, { hasGold: true, code: 'def f(', results: [], failed })).toEqual({
      checked: null,
      contradictions: null,
      agrees: null,
      reason: 'code-failed',
    });
    expect(goldControl(observed.slice(2), { hasGold: true, code: 'def f(a, b): ...', results: run(0), failed: null }).reason).toBe('no-observed-values');
  });
});

describe('diagnostics', () => {
  it("counts calls, repeats (whitespace-insensitive), errors and the agent's own mistakes", () => {
    const calls: Observation[] = [
      { arguments: '1, 2', result: ok(3) },
      { arguments: '1,2', result: ok(3) },
      { arguments: "'a'", result: err('TypeError', "unsupported operand type(s) for +: 'int' and 'str'") },
      { arguments: '1', result: err('TypeError', "add() missing 1 required positional argument: 'b'") },
      { arguments: 'x', result: err('BadArguments', 'not a literal') },
    ];
    expect(explorationCounts(calls)).toEqual({ calls: 5, distinctCalls: 4, repeatedCalls: 1, errors: 3, agentErrors: 2 });
  });

  it('contradicts observed: the generated code disagrees with a value the agent saw returned; exceptions, agent mistakes and limits are not checked', () => {
    const observed: Observation[] = [
      { arguments: '1, 2', result: ok(3) },
      { arguments: '1, 0', result: err('ZeroDivisionError') },
      { arguments: 'x', result: err('BadArguments') },
      { arguments: '9, 9', result: err('Timeout') },
    ];
    const same = [
      { ok: true as const, value: 3 },
      { ok: false as const, error: { type: 'ZeroDivisionError' } },
      { ok: true as const, value: 0 },
      { ok: true as const, value: 0 },
    ];
    expect(contradictions(observed, same)).toEqual({ checked: 1, contradictions: 0 });
    const wrong = [{ ok: true as const, value: { float: 3 } }, { ok: true as const, value: null }, undefined, undefined];
    expect(contradictions(observed, wrong)).toEqual({ checked: 1, contradictions: 1 });
    expect(isEvidence(err('MemoryLimit'))).toBe(false);
    expect(isEvidence(err('ValueError'))).toBe(true);
  });

  it('under-explored uses branch coverage when the method has branches, else statements', () => {
    expect(underExplored(1, 0.5, 4, 0.75)).toBe(true);
    expect(underExplored(0.5, 1, 0, 0.75)).toBe(true);
    expect(underExplored(1, 1, 0, 0.75)).toBe(false);
    expect(underExplored(null, null, 0)).toBeNull();
  });
});
