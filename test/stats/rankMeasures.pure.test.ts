// The rank measures of the on-policy critic card (domain/stats/ranks.ts, auroc.ts, spearman.ts) against cases
// computed by hand.
import { describe, expect, it } from 'vitest';
import { auroc } from '../../domain/stats/auroc';
import { averageRanks } from '../../domain/stats/ranks';
import { spearmanRho } from '../../domain/stats/spearman';

describe('averageRanks', () => {
  it('ranks from 1 in ascending order, tied values sharing the mean of their ranks', () => {
    expect(averageRanks([30, 10, 20])).toEqual([3, 1, 2]);
    // 0.3 and 0.3 hold ranks 2 and 3: both 2.5; the three 1s ranks 4-6: 5.
    expect(averageRanks([0.3, 1, 0.1, 1, 0.3, 1])).toEqual([2.5, 5, 1, 5, 2.5, 5]);
    expect(averageRanks([])).toEqual([]);
  });
});

describe('auroc', () => {
  it('the share of (positive, negative) pairs ordered, a tie counted half', () => {
    // positives 0.9, 0.3; negatives 0.8, 0.3, 0.1: 0.9 beats all 3; 0.3 loses to 0.8, ties 0.3, beats 0.1: 4.5 / 6.
    expect(auroc([0.9, 0.8, 0.3, 0.3, 0.1], [true, false, true, false, false])).toBeCloseTo(0.75, 12);
    expect(auroc([1, 0], [true, false])).toBe(1);
    expect(auroc([0, 1], [true, false])).toBe(0);
    // every score equal: every pair a tie, chance
    expect(auroc([0.5, 0.5, 0.5], [true, false, false])).toBe(0.5);
  });

  it('null without a pair to order (one class empty); a length mismatch is an error', () => {
    expect(auroc([0.1, 0.2], [true, true])).toBeNull();
    expect(auroc([], [])).toBeNull();
    expect(() => auroc([1], [true, false])).toThrow('1 scores but 2 labels');
  });
});

describe('spearmanRho', () => {
  it('the correlation of ranks: 1 - 6 sum d^2 / (n (n^2 - 1)) without ties, ranks averaged with them', () => {
    // y ranks 1, 3, 2, 4 against 1..4: sum d^2 = 2, 1 - 12 / 60 = 0.8.
    expect(spearmanRho([1, 2, 3, 4], [10, 30, 20, 40])).toBeCloseTo(0.8, 12);
    expect(spearmanRho([1, 2, 3], [3, 2, 1])).toBeCloseTo(-1, 12);
    // x ranks 1.5, 1.5, 3 (mean 2): dx -0.5, -0.5, 1; dy -1, 0, 1: 1.5 / sqrt(1.5 * 2).
    expect(spearmanRho([1, 1, 2], [1, 2, 3])).toBeCloseTo(1.5 / Math.sqrt(3), 12);
  });

  it('null when either side has no spread or there are fewer than 2 values', () => {
    expect(spearmanRho([1, 1, 1], [1, 2, 3])).toBeNull();
    expect(spearmanRho([1, 2, 3], [0.5, 0.5, 0.5])).toBeNull();
    expect(spearmanRho([1], [2])).toBeNull();
  });
});
