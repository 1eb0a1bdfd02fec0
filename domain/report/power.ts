// The power of a paired-by-method comparison, printed beside every paired difference: the paired standard
// deviation σ_d of the per-method differences, the minimum detectable effect at 80 % power for this n
// (two-sided α = 0.05), and the methods the paper's effects would need. Normal approximation:
//   MDE = (z_0.975 + z_0.80) · σ_d / √n = 2.80 · σ_d / √n,   n(δ) = ceil(((z_0.975 + z_0.80) · σ_d / δ)²).
// A difference smaller than its MDE is "not resolved at this n": the comparison could not tell it from 0
// reliably, which is no evidence that there is no effect. Pure.

/** z_{0.975}: two-sided α = 0.05. */
export const Z_ALPHA = 1.959963984540054;
/** z_{0.80}: power 0.8. */
export const Z_POWER = 0.8416212335729143;

/**
 * The paper's effects (../shared/RESEARCH.md, "Training": across base models AAC-GRPO adds +0.13 average
 * description score and +6.27 % code match): the differences a comparison here should be able to resolve.
 * Score in score points (1-5), code match as a share (0.0627 = 6.27 points).
 */
export const PAPER_EFFECT = { score: 0.13, codeMatch: 0.0627 } as const;
export type PaperEffect = keyof typeof PAPER_EFFECT;

export interface PairedPower {
  /** Sample standard deviation (n - 1) of the per-method differences; null under two pairs. */
  sd: number | null;
  /** Minimum detectable effect at 80 % power for this n, in the difference's unit; null without sd. */
  mde: number | null;
  /** Methods (pairs) that the paper's score and code match effects would need at this σ_d; null without sd. */
  nFor: Record<PaperEffect, number | null>;
}

/** The sample standard deviation of paired differences (denominator n - 1); null under two. */
export function pairedSd(diffs: readonly number[]): number | null {
  const n = diffs.length;
  if (n < 2) return null;
  let s = 0;
  for (const d of diffs) s += d;
  const m = s / n;
  let ss = 0;
  for (const d of diffs) ss += (d - m) ** 2;
  return Math.sqrt(ss / (n - 1));
}

/** Pairs a paired comparison with this σ_d needs to detect `delta` at 80 % power; at least 2 (a σ_d needs two). */
export function methodsNeeded(sd: number | null | undefined, delta: number): number | null {
  if (sd === null || sd === undefined || !Number.isFinite(sd) || delta === 0) return null;
  return Math.max(2, Math.ceil((((Z_ALPHA + Z_POWER) * sd) / delta) ** 2));
}

/** The power figures of a paired difference from its σ_d and n (a stored estimate has both; older ones no σ_d). */
export function powerOf(d: { sd?: number | null; n: number }): PairedPower {
  const sd = d.sd ?? null;
  const ok = sd !== null && Number.isFinite(sd) && d.n >= 2;
  return {
    sd: ok ? sd : null,
    mde: ok ? ((Z_ALPHA + Z_POWER) * sd) / Math.sqrt(d.n) : null,
    nFor: { score: ok ? methodsNeeded(sd, PAPER_EFFECT.score) : null, codeMatch: ok ? methodsNeeded(sd, PAPER_EFFECT.codeMatch) : null },
  };
}

/** σ_d, MDE at 80 % power and the methods the paper's effects need, from the per-method differences. */
export function pairedPower(diffs: readonly number[]): PairedPower {
  return powerOf({ sd: pairedSd(diffs), n: diffs.length });
}

/** A difference smaller than its MDE: not resolved at this n (false when either is unknown). */
export function notResolved(diff: number | null | undefined, mde: number | null | undefined): boolean {
  if (diff === null || diff === undefined || mde === null || mde === undefined) return false;
  return Math.abs(diff) < mde;
}
