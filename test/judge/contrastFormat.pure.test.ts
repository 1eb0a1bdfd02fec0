import { describe, expect, it } from 'vitest';
import { contrast, contrastDetail, contrastMethodId, contrastOrder, verdictYes } from '../../domain/judge/formats/contrast';
import { verify } from '../../domain/judge/formats/verify';
import { DEFAULT_JUDGE_FORMAT, scoreFromSamples } from '../../domain/judge/judgePrompt';
import type { ScoreDetail } from '../../domain/judge/scoreDistribution';
import { tok } from '../fixtures/tokenLogprobs';

const input = {
  signature: 'def add(a, b)',
  code: 'def add(a, b):\n    return a + b\n',
  goldDescription: 'Returns the sum of a and b.',
  agentDescription: 'Returns the sum of a and b.',
};

const verdict = (pYes: number): ScoreDetail => ({
  method: 'logprobs',
  format: 'verify',
  expected: 1 + 4 * pYes,
  argmax: pYes >= 0.5 ? 5 : 1,
  mass: 0.99,
  pYes,
});

describe('the contrast format (verify beside the method and beside an unrelated one)', () => {
  it('is the default and sends exactly verify messages, so both share the cache', () => {
    expect(DEFAULT_JUDGE_FORMAT).toBe('contrast');
    expect(contrast.messages(input)).toEqual(verify.messages(input));
    expect(contrast.parse('yes')).toBe(5);
    expect(contrast.retryPrompt).toMatch(/yes or no/);
    expect(
      contrast.fromLogprobs([
        tok(' no', [
          [' no', 0.6],
          ['yes', 0.2],
        ]),
      ]).pYes,
    ).toBeCloseTo(0.25, 9);
  });

  it('scores the yes specific to the method: 1 + 4 max(0, P(yes) - P(yes | contrast))', () => {
    // A right description: yes beside its method, no beside another.
    const right = contrastDetail(verdict(0.9), verdict(0.1), 'm0');
    expect(right.expected).toBeCloseTo(1 + 4 * 0.8, 9);
    expect(right.argmax).toBe(5);
    expect(right).toMatchObject({ format: 'contrast', pYes: 0.9, pYesContrast: 0.1, contrastMethodId: 'm0' });
    // A description true of any function: yes beside both, so nothing specific.
    expect(contrastDetail(verdict(0.7), verdict(0.72), 'm0').expected).toBe(1);
    // Never above 5 or below 1.
    expect(contrastDetail(verdict(1), verdict(0), 'm0').expected).toBe(5);
    expect(contrastDetail(verdict(0), verdict(1), 'm0').expected).toBe(1);
  });

  it('is unscorable, with the reason, when either verdict is; verify flagged when no other method exists', () => {
    const none: ScoreDetail = {
      method: 'logprobs',
      format: 'verify',
      expected: null,
      argmax: null,
      unscorable: "no yes or no among the answer token's alternatives",
    };
    expect(contrastDetail(none, verdict(0.1), 'm0')).toMatchObject({ expected: null, unscorable: expect.stringMatching(/no yes or no/) });
    expect(contrastDetail(verdict(0.9), none, 'm0')).toMatchObject({
      expected: null,
      pYes: 0.9,
      unscorable: expect.stringMatching(/contrast method is unscorable/),
    });
    // No other method stored at all: verify's score, flagged.
    expect(contrastDetail(verdict(0.9), null, null)).toMatchObject({ expected: 1 + 4 * 0.9, format: 'contrast', noContrast: true });
  });

  it('reads sampled verdicts (an endpoint without logprobs) on the same scale', () => {
    const own = scoreFromSamples([5, 5, 1], 'verify');
    const other = scoreFromSamples([1, 1, 1], 'verify');
    expect(verdictYes(own)).toBeCloseTo(2 / 3, 9);
    const d = contrastDetail(own, other, 'm0');
    expect(d.method).toBe('sampled');
    expect(d.expected).toBeCloseTo(1 + 4 * (2 / 3), 9);
    // A flagged low yes/no mass on either side is kept.
    expect(contrastDetail(verdict(0.9), { ...verdict(0.1), lowMass: true }, 'm0').lowMass).toBe(true);
  });

  it('takes the contrast from the method before in the card order (sources round-robin, unreferenced last), cyclic', () => {
    const ms = [
      { id: 'a1', source: 'a', hasReference: true },
      { id: 'a2', source: 'a', hasReference: true },
      { id: 'c1', source: 'c', hasReference: false },
      { id: 'b1', source: 'b', hasReference: true },
      { id: 'b2', source: 'b', hasReference: true },
    ];
    const order = contrastOrder(ms);
    expect(order.map((m) => m.id)).toEqual(['a1', 'b1', 'a2', 'b2', 'c1']);
    expect(contrastMethodId(order, 'b1')).toBe('a1');
    expect(contrastMethodId(order, 'a1')).toBe('c1');
    expect(contrastMethodId(order, 'c1')).toBe('b2');
    expect(contrastMethodId(order, 'zz')).toBeNull();
    expect(contrastMethodId([{ id: 'a1' }], 'a1')).toBeNull();
  });
});
