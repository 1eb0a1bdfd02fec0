// Ranks with ties averaged, a leaf: the rank measures (AUROC, Spearman's rho) are built on it. Pure code.

/** The 1-based rank of each value in ascending order, tied values sharing the mean of their ranks. */
export function averageRanks(xs: readonly number[]): number[] {
  const order = xs.map((x, i) => ({ x, i })).sort((a, b) => a.x - b.x);
  const ranks = new Array<number>(xs.length);
  for (let start = 0; start < order.length; ) {
    let end = start;
    while (end + 1 < order.length && order[end + 1]!.x === order[start]!.x) end++;
    // positions start..end (0-based) hold ranks start+1..end+1: their mean
    const rank = (start + end) / 2 + 1;
    for (let k = start; k <= end; k++) ranks[order[k]!.i] = rank;
    start = end + 1;
  }
  return ranks;
}
