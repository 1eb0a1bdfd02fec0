// Kendall's tau-b (domain/stats/kendallTau.ts: the judge card's agreement of scores and code match) against
// cases computed by hand.
import { describe, expect, it } from 'vitest';
import { kendallTauB } from '../../domain/stats/kendallTau';

describe('kendallTauB', () => {
  it('same order 1, reversed -1, with ties as computed by hand, null when one side is all ties', () => {
    expect(kendallTauB([4, 3, 2, 1], [5, 4, 2, 1])).toBe(1);
    expect(kendallTauB([4, 3, 2, 1], [1, 2, 3, 4])).toBe(-1);
    // y = 5, 5, 2, 1: pairs (1,2) tie in y; the other 5 concordant: (5 - 0) / sqrt(6 * 5) = 0.9129.
    expect(kendallTauB([4, 3, 2, 1], [5, 5, 2, 1])).toBeCloseTo(5 / Math.sqrt(30), 12);
    // (6 pairs, 1 discordant, no ties): (5 - 1) / 6.
    expect(kendallTauB([4, 3, 2, 1], [3, 4, 2, 1])).toBeCloseTo(4 / 6, 12);
    expect(kendallTauB([4, 3, 2, 1], [3, 3, 3, 3])).toBeNull();
  });
});
