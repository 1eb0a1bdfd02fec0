// The power of a paired comparison (domain/report/power.ts), with values worked out by hand: σ_d of the
// per-method differences, MDE = (z_0.975 + z_0.80) σ_d / √n, n(δ) = ceil(((z_0.975 + z_0.80) σ_d / δ)²); and how
// every paired table prints them (summarize.ts powerCells / powerSuffix).
import { describe, expect, it } from 'vitest';
import { methodsNeeded, notResolved, PAPER_EFFECT, pairedPower, pairedSd, powerOf, Z_ALPHA, Z_POWER } from '../../domain/report/power';
import { pairedDifference } from '../../domain/report/stats';
import { POWER_HEADERS, powerCells, powerSuffix } from '../../domain/report/summarize';

describe('pairedPower', () => {
  it('diffs [1, -1, 1, -1]: σ_d = √(4/3), MDE = 2.8016 · σ_d / 2, and the methods the paper effects need', () => {
    expect(Z_ALPHA + Z_POWER).toBeCloseTo(2.8016, 4);
    const p = pairedPower([1, -1, 1, -1]);
    // mean 0; squared deviations 4 over n - 1 = 3
    expect(p.sd).toBeCloseTo(1.154701, 6);
    expect(p.mde).toBeCloseTo(1.617496, 6); // 2.801585 · 1.154701 / 2
    // (2.801585 · 1.154701 / 0.13)² = 619.24; / 0.0627: 2662.02
    expect(p.nFor).toEqual({ score: 620, codeMatch: 2663 });
  });

  it("the outside estimate: at σ_d 1.0 the paper's +0.13 needs 465 methods; at σ_d 25 points, +6.27 points needs 125", () => {
    expect(PAPER_EFFECT).toEqual({ score: 0.13, codeMatch: 0.0627 });
    expect(methodsNeeded(1, PAPER_EFFECT.score)).toBe(465); // (2.801585 / 0.13)² = 464.43
    expect(methodsNeeded(0.25, PAPER_EFFECT.codeMatch)).toBe(125); // (2.801585 · 0.25 / 0.0627)² = 124.78
    expect(methodsNeeded(1, -0.13)).toBe(465); // a fall is as hard to see as a rise
  });

  it('fewer than two pairs, or a document stored before σ_d: nothing to say', () => {
    const none = { sd: null, mde: null, nFor: { score: null, codeMatch: null } };
    expect(pairedPower([])).toEqual(none);
    expect(pairedPower([0.7])).toEqual(none);
    expect(pairedSd([0.7])).toBeNull();
    expect(powerOf({ n: 12 })).toEqual(none);
    expect(powerOf({ sd: null, n: 12 })).toEqual(none);
  });

  it('identical differences: σ_d 0, MDE 0, and the fewest pairs a σ_d needs', () => {
    expect(pairedPower([0.5, 0.5, 0.5])).toEqual({ sd: 0, mde: 0, nFor: { score: 2, codeMatch: 2 } });
  });

  it('a difference below its MDE is not resolved at this n; unknowns say nothing', () => {
    expect(notResolved(0.3, 1.6)).toBe(true);
    expect(notResolved(-0.3, 1.6)).toBe(true);
    expect(notResolved(-2, 1.6)).toBe(false);
    expect(notResolved(1.6, 1.6)).toBe(false);
    expect(notResolved(null, 1.6)).toBe(false);
    expect(notResolved(0.3, null)).toBe(false);
  });

  it('pairedDifference carries σ_d of its per-method differences, and powerOf of it is pairedPower of those differences', () => {
    const b = [1, 2, 3, 4].map((value, i) => ({ key: `m${i}`, value }));
    const a = [2, 1, 4, 3].map((value, i) => ({ key: `m${i}`, value }));
    const d = pairedDifference(a, b, { resamples: 100 });
    expect(d.n).toBe(4);
    expect(d.sd).toBeCloseTo(Math.sqrt(4 / 3), 12);
    expect(powerOf(d)).toEqual(pairedPower([1, -1, 1, -1]));
  });
});

describe('power cells', () => {
  const b = [1, 2, 3, 4].map((value, i) => ({ key: `m${i}`, value }));
  const a = [2, 1, 4, 3].map((value, i) => ({ key: `m${i}`, value }));

  it('score: σ_d, MDE marked when the difference is below it, n for ±0.13', () => {
    const d = pairedDifference(a, b, { resamples: 100 }); // mean 0
    expect(powerCells(d, 'score')).toEqual(['1.15', '1.62 (not resolved at this n)', '620 for ±0.13']);
    expect(powerSuffix(d, 'score')).toBe(" (σ_d 1.15, MDE (80 %) 1.62 (not resolved at this n), n for paper's effect 620 for ±0.13)");
    const big = { ...d, mean: 2 };
    expect(powerCells(big, 'score')[1]).toBe('1.62');
  });

  it('shares in percentage points; code match against ±6.27 points, no paper effect for the fail rate', () => {
    const d = { ...pairedDifference(a, b, { resamples: 100 }), sd: 0.25, mean: 0.2 };
    // MDE 2.801585 · 0.25 / 2 = 0.3502: 35.0 points, above the 20-point difference
    expect(powerCells(d, 'codeMatchUnobserved')).toEqual(['25.0 pts', '35.0 pts (not resolved at this n)', '125 for ±6.3 pts']);
    expect(powerCells(d, 'failRate')).toEqual(['25.0 pts', '35.0 pts (not resolved at this n)', '-']);
    expect(powerSuffix(d, 'failRate')).toBe(' (σ_d 25.0 pts, MDE (80 %) 35.0 pts (not resolved at this n))');
  });

  it('a difference stored before σ_d: dashes in the table, nothing in a line', () => {
    const { sd: _, ...old } = pairedDifference(a, b, { resamples: 100 });
    expect(powerCells(old, 'score')).toEqual(['-', '-', '-']);
    expect(powerSuffix(old, 'score')).toBe('');
    expect(POWER_HEADERS).toEqual(['σ_d', 'MDE (80 %)', "n for paper's effect"]);
  });
});
