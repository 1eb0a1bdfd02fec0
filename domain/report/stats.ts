// Means with 95% bootstrap confidence intervals, and paired differences, all seeded and deterministic:
// the same data and seed give the same interval on every machine (no Math.random).
// Method: percentile bootstrap, B resamples (default 2000) with replacement. The benchmark's observations
// are not independent (several samples and two settings of one method share its difficulty), so report
// means resample methods, not episodes (bootstrapOverMethods); paired differences pair by method.
import { seededRandom } from '../common/seededRandom';
import { pairedSd } from './power';

export interface Estimate {
  n: number;
  mean: number | null;
  lo: number | null;
  hi: number | null;
}

export interface BootstrapOptions {
  resamples: number;
  confidence: number;
  seed: number;
}

export const DEFAULT_BOOTSTRAP: BootstrapOptions = { resamples: 2000, confidence: 0.95, seed: 20260 };

export { seededRandom };

export function mean(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

/** The q-quantile of sorted values, linear interpolation between order statistics (numpy's default). */
export function quantileSorted(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (b - a) * (pos - lo);
}

/** The percentile interval of bootstrap resample means at `confidence` (e.g. 0.95: the 2.5 % and 97.5 % quantiles). */
function percentileInterval(means: Float64Array, confidence: number): { lo: number; hi: number } {
  const sorted = Array.from(means).sort((p, q) => p - q);
  const alpha = (1 - confidence) / 2;
  return { lo: quantileSorted(sorted, alpha), hi: quantileSorted(sorted, 1 - alpha) };
}

/** The mean of `xs` with a percentile-bootstrap confidence interval. Non-finite values are dropped. */
export function bootstrapMean(xs: readonly number[], options: Partial<BootstrapOptions> = {}): Estimate {
  const o = { ...DEFAULT_BOOTSTRAP, ...options };
  const data = xs.filter((x) => Number.isFinite(x));
  const n = data.length;
  const m = mean(data);
  if (n === 0 || m === null) return { n: 0, mean: null, lo: null, hi: null };
  if (n === 1) return { n, mean: m, lo: m, hi: m };
  const rand = seededRandom(o.seed);
  const means = new Float64Array(o.resamples);
  for (let b = 0; b < o.resamples; b++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += data[Math.floor(rand() * n)] as number;
    means[b] = s / n;
  }
  return { n, mean: m, ...percentileInterval(means, o.confidence) };
}

/** One observation of the method (or other cluster) it belongs to. */
export interface Clustered {
  cluster: string;
  value: number;
}

/**
 * The mean of all observations with a cluster (method) bootstrap interval: each resample draws as many
 * methods as there are, with replacement, and takes the mean of all their observations (a ratio
 * estimator, so the point estimate is the plain mean over observations). With one observation per method
 * this is bootstrapMean, draw for draw. `n` counts observations, `clusters` the methods.
 */
export function bootstrapOverMethods(obs: readonly Clustered[], options: Partial<BootstrapOptions> = {}): Estimate & { clusters: number } {
  const o = { ...DEFAULT_BOOTSTRAP, ...options };
  const sums = new Map<string, { s: number; c: number }>();
  for (const x of obs) {
    if (!Number.isFinite(x.value)) continue;
    const t = sums.get(x.cluster) ?? sums.set(x.cluster, { s: 0, c: 0 }).get(x.cluster)!;
    t.s += x.value;
    t.c += 1;
  }
  const cs = [...sums.values()];
  const k = cs.length;
  const n = cs.reduce((a, t) => a + t.c, 0);
  if (k === 0) return { n: 0, mean: null, lo: null, hi: null, clusters: 0 };
  const m = cs.reduce((a, t) => a + t.s, 0) / n;
  if (k === 1) return { n, mean: m, lo: m, hi: m, clusters: 1 };
  const rand = seededRandom(o.seed);
  const means = new Float64Array(o.resamples);
  for (let b = 0; b < o.resamples; b++) {
    let s = 0;
    let c = 0;
    for (let i = 0; i < k; i++) {
      const t = cs[Math.floor(rand() * k)]!;
      s += t.s;
      c += t.c;
    }
    means[b] = s / c;
  }
  return { n, mean: m, ...percentileInterval(means, o.confidence), clusters: k };
}

export interface Pairable {
  /** What pairs two observations: the method id (repeated samples of a method are averaged first). */
  key: string;
  value: number;
}

/** A paired difference a - b: mean over pairs with its bootstrap interval, its spread, and how the pairs fell. */
export interface PairedEstimate extends Estimate {
  /**
   * The paired standard deviation σ_d of the per-pair differences (null under two pairs), from which
   * power.ts `powerOf` gives the MDE and the methods an effect needs. Absent in documents stored before it.
   */
  sd?: number | null;
  /** Keys present on one side only (counted, not used). */
  unpaired: number;
  /** Pairs where a is better, equal (|d| < 1e-9), worse; "better" is higher unless lowerIsBetter. */
  wins: number;
  ties: number;
  losses: number;
}

const TIE = 1e-9;

/**
 * Paired differences a - b over keys present on both sides (e.g. checkpoint minus base, or interactive
 * minus in-context, paired by method), with a bootstrap interval over the pairs (resampling methods when
 * the key is the method), their standard deviation σ_d and wins / ties / losses. The one implementation
 * every report shares.
 */
export function pairedDifference(
  a: readonly Pairable[],
  b: readonly Pairable[],
  options: Partial<BootstrapOptions> & { lowerIsBetter?: boolean } = {},
): PairedEstimate {
  const bMap = new Map<string, number[]>();
  for (const p of b) if (Number.isFinite(p.value)) (bMap.get(p.key) ?? bMap.set(p.key, []).get(p.key)!).push(p.value);
  const aMap = new Map<string, number[]>();
  for (const p of a) if (Number.isFinite(p.value)) (aMap.get(p.key) ?? aMap.set(p.key, []).get(p.key)!).push(p.value);
  const diffs: number[] = [];
  let unpaired = 0;
  for (const [key, av] of aMap) {
    const bv = bMap.get(key);
    if (!bv) {
      unpaired += 1;
      continue;
    }
    diffs.push((mean(av) as number) - (mean(bv) as number));
  }
  for (const key of bMap.keys()) if (!aMap.has(key)) unpaired += 1;
  const sign = options.lowerIsBetter ? -1 : 1;
  const wins = diffs.filter((d) => sign * d > TIE).length;
  const losses = diffs.filter((d) => sign * d < -TIE).length;
  return { ...bootstrapMean(diffs, options), sd: pairedSd(diffs), unpaired, wins, ties: diffs.length - wins - losses, losses };
}
