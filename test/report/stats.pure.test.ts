import { describe, expect, it } from 'vitest';
import { bootstrapMean, bootstrapOverMethods, pairedDifference, quantileSorted, seededRandom } from '../../domain/report/stats';

describe('bootstrapMean', () => {
  it('a constant sample has a zero-width interval at the constant', () => {
    expect(bootstrapMean([3, 3, 3, 3])).toEqual({ n: 4, mean: 3, lo: 3, hi: 3 });
  });

  it('is deterministic for a seed, and differs by seed', () => {
    const xs = [1, 5, 2, 4, 3, 3, 5, 1, 2, 4];
    expect(bootstrapMean(xs)).toEqual(bootstrapMean(xs));
    expect(bootstrapMean(xs, { seed: 1 })).not.toEqual(bootstrapMean(xs, { seed: 2 }));
  });

  it('matches the known normal-theory interval for a large Bernoulli sample', () => {
    // 1000 observations, 300 ones: mean 0.3, se = sqrt(0.3*0.7/1000) = 0.014491; 95% CI ~ 0.3 +- 0.0284.
    const xs = Array.from({ length: 1000 }, (_, i) => (i < 300 ? 1 : 0));
    const e = bootstrapMean(xs, { resamples: 4000 });
    expect(e.mean).toBeCloseTo(0.3, 12);
    expect(e.lo!).toBeGreaterThan(0.3 - 0.0284 - 0.004);
    expect(e.lo!).toBeLessThan(0.3 - 0.0284 + 0.004);
    expect(e.hi!).toBeGreaterThan(0.3 + 0.0284 - 0.004);
    expect(e.hi!).toBeLessThan(0.3 + 0.0284 + 0.004);
  });

  it('handles the empty and single samples, and drops non-finite values', () => {
    expect(bootstrapMean([])).toEqual({ n: 0, mean: null, lo: null, hi: null });
    expect(bootstrapMean([2])).toEqual({ n: 1, mean: 2, lo: 2, hi: 2 });
    expect(bootstrapMean([2, NaN, 4]).mean).toBe(3);
  });

  it('the interval holds the mean and sits inside the data range', () => {
    const xs = [1, 2, 2, 3, 5, 5, 4, 1];
    const e = bootstrapMean(xs);
    expect(e.lo!).toBeLessThanOrEqual(e.mean!);
    expect(e.hi!).toBeGreaterThanOrEqual(e.mean!);
    expect(e.lo!).toBeGreaterThanOrEqual(1);
    expect(e.hi!).toBeLessThanOrEqual(5);
  });
});

describe('bootstrapOverMethods', () => {
  it('with one observation per method it is bootstrapMean, draw for draw', () => {
    const xs = [1, 5, 2, 4, 3, 3, 5, 1, 2, 4];
    const e = bootstrapOverMethods(xs.map((value, i) => ({ cluster: `m${i}`, value })));
    expect(e).toEqual({ ...bootstrapMean(xs), clusters: 10 });
  });

  it('resamples methods, not episodes: copies of a method widen nothing and narrow nothing', () => {
    // Each method observed 5 times with the same value: the interval is that of the 10 method values,
    // whereas a bootstrap over the 50 episodes would pretend to 5 times the evidence.
    const xs = [1, 5, 2, 4, 3, 3, 5, 1, 2, 4];
    const obs = xs.flatMap((value, i) => Array.from({ length: 5 }, () => ({ cluster: `m${i}`, value })));
    const byMethod = bootstrapOverMethods(obs);
    const one = bootstrapMean(xs);
    expect(byMethod).toEqual({ n: 50, mean: one.mean, lo: one.lo, hi: one.hi, clusters: 10 });
    const byEpisode = bootstrapMean(obs.map((o) => o.value));
    expect(byEpisode.hi! - byEpisode.lo!).toBeLessThan(0.6 * (byMethod.hi! - byMethod.lo!));
  });

  it('two methods, one all 0 and one all 1: the resampled means are 0, 1/2 or 1, so the 95% interval is [0, 1]', () => {
    // Hand-computed: P(0) = P(1) = 1/4, P(1/2) = 1/2; the 2.5% and 97.5% quantiles are 0 and 1.
    const obs = [0, 0, 0, 1, 1, 1].map((value, i) => ({ cluster: i < 3 ? 'a' : 'b', value }));
    expect(bootstrapOverMethods(obs)).toEqual({ n: 6, mean: 0.5, lo: 0, hi: 1, clusters: 2 });
  });

  it('weighs methods by their observations (the point estimate is the plain mean) and handles the edges', () => {
    const obs = [
      { cluster: 'a', value: 1 },
      { cluster: 'a', value: 1 },
      { cluster: 'a', value: 1 },
      { cluster: 'b', value: 0 },
      { cluster: 'b', value: NaN },
    ];
    expect(bootstrapOverMethods(obs).mean).toBe(0.75);
    expect(bootstrapOverMethods([])).toEqual({ n: 0, mean: null, lo: null, hi: null, clusters: 0 });
    expect(bootstrapOverMethods(obs.slice(0, 3))).toEqual({ n: 3, mean: 1, lo: 1, hi: 1, clusters: 1 });
  });
});

describe('pairedDifference', () => {
  it('a constant paired shift is found exactly, whatever the spread of the levels', () => {
    const b = [1, 5, 2, 4, 3].map((v, i) => ({ key: `m${i}`, value: v }));
    const a = b.map((p) => ({ key: p.key, value: p.value + 1 }));
    expect(pairedDifference(a, b)).toEqual({ n: 5, mean: 1, lo: 1, hi: 1, sd: 0, unpaired: 0, wins: 5, ties: 0, losses: 0 });
  });

  it('pairs by key, averages repeated samples of a key, and counts the unpaired', () => {
    const a = [
      { key: 'x', value: 4 },
      { key: 'x', value: 2 },
      { key: 'y', value: 1 },
      { key: 'only-a', value: 9 },
    ];
    const b = [
      { key: 'x', value: 1 },
      { key: 'y', value: 1 },
      { key: 'only-b', value: 9 },
    ];
    const d = pairedDifference(a, b);
    expect(d.n).toBe(2);
    expect(d.mean).toBe(1); // x: 3-1 = 2, y: 0
    expect(d.unpaired).toBe(2);
    expect(d).toMatchObject({ wins: 1, ties: 1, losses: 0 });
  });

  it('counts wins / ties / losses in the better direction', () => {
    const a = [0.5, 0.2, 0.2, 0].map((value, i) => ({ key: `m${i}`, value }));
    const b = [0.2, 0.2, 0.5, 0.1].map((value, i) => ({ key: `m${i}`, value }));
    expect(pairedDifference(a, b)).toMatchObject({ wins: 1, ties: 1, losses: 2 });
    expect(pairedDifference(a, b, { lowerIsBetter: true })).toMatchObject({ wins: 2, ties: 1, losses: 1 });
  });
});

describe('helpers', () => {
  it('quantiles interpolate like numpy', () => {
    expect(quantileSorted([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantileSorted([1, 2, 3, 4], 0.025)).toBeCloseTo(1.075, 12);
  });
  it('the PRNG is uniform-ish and in [0, 1)', () => {
    const r = seededRandom(7);
    const xs = Array.from({ length: 10000 }, r);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
    expect(xs.reduce((s, x) => s + x, 0) / xs.length).toBeCloseTo(0.5, 1);
  });
});
