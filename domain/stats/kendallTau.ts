// Rank correlation, a leaf: the judge card measures with it how well a judge's scores follow code match. Pure
// code.

/**
 * Kendall's tau-b between two score lists (ties handled: 1 = same order, -1 = reversed, 0 = none; null
 * when either side is all ties, where no order is defined).
 */
export function kendallTauB(x: readonly number[], y: readonly number[]): number | null {
  let concordant = 0;
  let discordant = 0;
  let tiesX = 0;
  let tiesY = 0;
  for (let i = 0; i < x.length; i++)
    for (let j = i + 1; j < x.length; j++) {
      const dx = Math.sign(x[i]! - x[j]!);
      const dy = Math.sign(y[i]! - y[j]!);
      if (dx === 0 && dy === 0) continue;
      if (dx === 0) tiesX++;
      else if (dy === 0) tiesY++;
      else if (dx === dy) concordant++;
      else discordant++;
    }
  const denom = Math.sqrt((concordant + discordant + tiesX) * (concordant + discordant + tiesY));
  return denom === 0 ? null : (concordant - discordant) / denom;
}
