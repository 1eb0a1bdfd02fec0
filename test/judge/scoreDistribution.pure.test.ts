import { describe, expect, it } from 'vitest';
import { digitDistributionAt, rationale, scoreTokenIndex } from '../../domain/judge/formats/rationale';
import { scoreFromSamples } from '../../domain/judge/judgePrompt';
import { tok } from '../fixtures/tokenLogprobs';

describe('probability-weighted scores', () => {
  it('is the expectation over the digits, renormalised, with the argmax and mass', () => {
    const d = digitDistributionAt(
      tok('4', [
        ['4', 0.5],
        ['5', 0.3],
        ['3', 0.1],
        ['x', 0.1],
      ]),
    );
    expect(d).not.toBeNull();
    expect(d!.mass).toBeCloseTo(0.9);
    expect(d!.expected).toBeCloseTo((4 * 0.5 + 5 * 0.3 + 3 * 0.1) / 0.9);
    expect(d!.argmax).toBe(4);
  });

  it('reads the digit after the last SCORE label, not an earlier digit', () => {
    const toks = [
      tok('It'),
      tok(' returns'),
      tok(' 3'),
      tok('.\n'),
      tok('SCORE'),
      tok(':'),
      tok(' '),
      tok('2', [
        ['2', 0.6],
        ['1', 0.4],
      ]),
    ];
    expect(scoreTokenIndex(toks)).toBe(7);
    const s = rationale.fromLogprobs(toks);
    expect(s.expected).toBeCloseTo(1.6);
    expect(s.argmax).toBe(2);
    expect(s.lowMass).toBeUndefined();
  });

  it('flags a score token with under half its mass on digits, and is unscorable with none', () => {
    const low = rationale.fromLogprobs([
      tok('SCORE'),
      tok(':'),
      tok('3', [
        ['3', 0.3],
        ['x', 0.7],
      ]),
    ]);
    expect(low.lowMass).toBe(true);
    expect(low.expected).toBeCloseTo(3);
    const none = rationale.fromLogprobs([tok('no'), tok(' score')]);
    expect(none.expected).toBeNull();
    expect(none.unscorable).toMatch(/no score token/);
    // A digit without its label is no score, as parseScore reads the text.
    const bare = rationale.fromLogprobs([
      tok('5', [
        ['5', 0.7],
        ['4', 0.3],
      ]),
    ]);
    expect(bare.expected).toBeNull();
  });

  it('averages sampled verdicts, never a silent number when none parsed', () => {
    expect(scoreFromSamples([4, 5, null], 'rationale')).toMatchObject({ method: 'sampled', expected: 4.5, samples: [4, 5, null] });
    expect(scoreFromSamples([null, null], 'rationale')).toMatchObject({ expected: null, unscorable: expect.stringMatching(/no sampled verdict/) });
  });
});
