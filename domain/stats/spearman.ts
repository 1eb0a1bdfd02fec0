// Spearman's rank correlation, a leaf: the on-policy critic card measures with it, within a group of rollouts
// of one method, whether a critic's summed step ratings follow the rollouts' code match. Pure code.
import { averageRanks } from './ranks';

/**
 * Spearman's rho: the Pearson correlation of the two lists' ranks, ties sharing their mean rank (1 = same
 * order, -1 = reversed). Null when either list has no spread (all tied: no order to compare) or fewer than 2 values.
 */
export function spearmanRho(x: readonly number[], y: readonly number[]): number | null {
  if (x.length !== y.length) throw new Error(`${x.length} values against ${y.length}`);
  if (x.length < 2) return null;
  const rx = averageRanks(x);
  const ry = averageRanks(y);
  const mean = (r: number[]) => r.reduce((a, v) => a + v, 0) / r.length;
  const mx = mean(rx);
  const my = mean(ry);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < rx.length; i++) {
    const dx = rx[i]! - mx;
    const dy = ry[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return sxx === 0 || syy === 0 ? null : sxy / Math.sqrt(sxx * syy);
}
