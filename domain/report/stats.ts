// Means with 95% bootstrap confidence intervals, and paired differences, all seeded and deterministic:
// the same data and seed give the same interval on every machine (no Math.random).
// Method: percentile bootstrap, B resamples (default 2000) of the observations with replacement.
import { seededRandom } from '../common/seededRandom';

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
  const sorted = Array.from(means).sort((p, q) => p - q);
  const alpha = (1 - o.confidence) / 2;
  return { n, mean: m, lo: quantileSorted(sorted, alpha), hi: quantileSorted(sorted, 1 - alpha) };
}

export interface Pairable {
  /** What pairs two observations: e.g. `${methodId}#${sample}`. */
  key: string;
  value: number;
}

/**
 * Paired differences a - b over keys present on both sides (e.g. interactive minus in-context, paired by
 * method and sample), with a bootstrap interval over the pairs. Unpaired keys are counted, not used.
 */
export function pairedDifference(a: readonly Pairable[], b: readonly Pairable[], options: Partial<BootstrapOptions> = {}): Estimate & { unpaired: number } {
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
  return { ...bootstrapMean(diffs, options), unpaired };
}
