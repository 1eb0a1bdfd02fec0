// The shipped judge card's rules (domain/judge/shippedCard.ts): the file's schema refuses what it cannot
// trust, a key that differs says which field, and the sample's agreement rule as written down.
import { describe, expect, it } from 'vitest';
import {
  classifierControlOf,
  keyMismatch,
  SAMPLE_RULE,
  sampleAgreement,
  sampleMethodIds,
  sampleTolerance,
  SHIPPED_CARD_KIND,
  shippedCardFileSchema,
  type ShippedCardKey,
  shippedCheckLines,
} from '../../domain/judge/shippedCard';

const key: ShippedCardKey = {
  judgeModel: 'local/qwen2.5-coder-1.5b',
  coderModel: 'local/qwen2.5-coder-1.5b',
  judgeWeights: `local:${'a'.repeat(64)}`,
  coderWeights: `local:${'a'.repeat(64)}`,
  judgeParams: { temperature: 0 },
  coderParams: { temperature: 0 },
  promptVersion: 'judge-v4/contrast/card2',
  dataset: 'pau-v1',
  datasetContentHash: 'abc',
  split: 'validation',
};
const row = (methodId: string, gold: number, codeOnlyGold?: number) => ({
  methodId,
  source: methodId[0]!,
  scores: { gold, wrong: 1, empty: 1, injection: 1 },
  codeMatch: { gold: 1, empty: 0 },
  ...(codeOnlyGold === undefined ? {} : { codeOnlyScores: { gold: codeOnlyGold } }),
});
const file = (rows: unknown[]) => ({
  kind: SHIPPED_CARD_KIND,
  version: 1,
  key,
  computed: { at: '2026-12-07T19:03:42Z', machine: '2 cores', workflowId: null },
  rows,
});

describe('the shipped card file', () => {
  it('parses a card and refuses, by field, a score off the scale, a repeated method, an unknown field and too few rows', () => {
    expect(shippedCardFileSchema.safeParse(file([row('a', 4), row('b', 5)])).success).toBe(true);
    const issue = (v: unknown) => {
      const r = shippedCardFileSchema.safeParse(v);
      return r.success ? null : `${r.error.issues[0]!.path.join('.')}: ${r.error.issues[0]!.message}`;
    };
    expect(issue(file([row('a', 7), row('b', 5)]))).toMatch(/^rows\.0\.scores\.gold: /);
    expect(issue(file([row('a', 4), row('a', 5)]))).toBe('rows.1.methodId: method a appears twice');
    expect(issue(file([{ ...row('a', 4), verdict: 'QUALIFIED' }, row('b', 5)]))).toMatch(/^rows\.0: Unrecognized key/);
    expect(issue(file([row('a', 4)]))).toMatch(/^rows: /);
    expect(issue({ ...file([row('a', 4), row('b', 5)]), kind: 'other' })).toMatch(/^kind: /);
    expect(issue({ ...file([row('a', 4), row('b', 5)]), key: { ...key, judgeWeights: '' } })).toMatch(/^key\.judgeWeights: /);
  });

  it('a key holds when the weights, params, prompts and dataset content are equal, whatever the models are named', () => {
    expect(keyMismatch(key, { ...key, judgeModel: 'my-1.5b', coderModel: 'my-1.5b' })).toEqual([]);
    expect(keyMismatch(key, { ...key, promptVersion: 'judge-v4/contrast/card3', datasetContentHash: 'def' })).toEqual([
      'promptVersion: shipped judge-v4/contrast/card2, here judge-v4/contrast/card3',
      'datasetContentHash: shipped abc, here def',
    ]);
    expect(keyMismatch(key, { ...key, judgeParams: { temperature: 0.7 } })).toEqual(['judgeParams: shipped {"temperature":0}, here {"temperature":0.7}']);
  });

  it('the sample is the card first methods; the classifier control sums the rows that have a pair', () => {
    expect(sampleMethodIds({ rows: [row('c1', 4), row('h1', 4), row('m1', 4), row('c2', 4)] })).toEqual(['c1', 'h1', 'm1']);
    expect(classifierControlOf([{ classifier: { n: 2, correct: 1, unparsable: 0 } }, {}, { classifier: { n: 2, correct: 2, unparsable: 1 } }])).toEqual({
      n: 4,
      correct: 3,
      accuracy: 0.75,
      unparsable: 1,
    });
    expect(classifierControlOf([{}])).toBeUndefined();
  });
});

describe('the sample agreement rule', () => {
  const rows = [row('a', 4.0, 3.0), row('b', 4.5, 3.5)];
  const asked = (gold: number, codeOnlyGold: number, wrong = 1) => [
    { rung: 'gold' as const, score: gold },
    { rung: 'wrong' as const, score: wrong },
    { rung: 'gold' as const, mode: 'codeOnly' as const, score: codeOnlyGold },
  ];

  it('the tolerance is 4 test–retest SDs, never under 0.25', () => {
    expect(sampleTolerance(0.047)).toBe(0.25);
    expect(sampleTolerance(0.1)).toBeCloseTo(0.4);
    expect(sampleTolerance(null)).toBe(SAMPLE_RULE.minTolerance);
  });

  it('agrees when every score is within the tolerance, in both modes; says the figures', () => {
    const a = sampleAgreement(
      rows,
      [
        { methodId: 'a', scores: asked(4.2, 3.1) },
        { methodId: 'b', scores: asked(4.4, 3.5, 1.1) },
      ],
      0.047,
    );
    expect(a).toMatchObject({ pairs: 6, within: 6, missing: 0, tolerance: 0.25, agrees: true, why: [] });
    expect(a.maxAbsDiff).toBeCloseTo(0.2);
    expect(shippedCheckLines({ status: 'verified', file: 'f', sample: a, judgeQualified: true, coderQualified: true })[0]).toBe(
      "shipped judge card verified on a sample (6 of 6 scores of 2 methods within 0.25, largest move 0.20): kept as this machine's card",
    );
  });

  it('does not agree when under 90% lie within the tolerance, or when one score moves more than half a step', () => {
    const share = sampleAgreement(rows, [{ methodId: 'a', scores: asked(4.4, 3.4) }], 0.047);
    expect(share.agrees).toBe(false);
    expect(share.why).toEqual(['1 of 3 scores within 0.25 of the shipped ones (needs 90%)']);
    const big = sampleAgreement(
      [row('a', 4, 3), row('b', 4, 3), row('c', 4, 3), row('d', 4, 3)],
      ['a', 'b', 'c', 'd'].map((methodId) => ({ methodId, scores: asked(methodId === 'a' ? 3.4 : 4, 3) })),
      0.047,
    );
    // 11 of 12 within (92%), but one move of 0.6 could flip an ordering the card counts.
    expect(big.within).toBe(11);
    expect(big.agrees).toBe(false);
    expect(big.why).toEqual(['a score moved 0.60 (more than 0.5, enough to flip an ordering the card counts)']);
    expect(shippedCheckLines({ status: 'disagrees', file: 'f', sample: big })[0]).toMatch(
      /^shipped judge card NOT verified .*; the whole card is computed here$/,
    );
  });

  it('a score one side could not parse counts against agreement; both unparsable agree; a rung the card did not score is not compared', () => {
    const a = sampleAgreement(
      [{ methodId: 'a', scores: { gold: null, wrong: 1 }, codeOnlyScores: {} }],
      [
        {
          methodId: 'a',
          scores: [
            { rung: 'gold', score: null },
            { rung: 'wrong', score: null },
            { rung: 'empty', score: 1 },
          ],
        },
      ],
      0,
    );
    expect(a).toMatchObject({ pairs: 2, within: 1, missing: 1, agrees: false });
    expect(sampleAgreement(rows, [{ methodId: 'zz', scores: asked(4, 3) }], 0).why).toEqual(['no score of the sample was in the shipped card']);
  });

  it('says why a file was not used, one line per file', () => {
    expect(shippedCheckLines({ status: 'ignored', why: ['x.json is for another key: promptVersion: ...'] })).toEqual([
      'shipped judge card ignored: x.json is for another key: promptVersion: ...',
    ]);
  });
});
