// Coverage across batches of the same source (e.g. an episode's queries arrive one batch per turn):
// totals are the same, so a line or branch arc is missing only if it is missing in every batch.
import type { Coverage } from './schemas';

function arcKey(a: readonly [number, number]): string {
  return `${a[0]},${a[1]}`;
}

/** Union of what two batches of the SAME source executed. */
export function mergeCoverage(a: Coverage | null, b: Coverage | null): Coverage | null {
  if (!a) return b;
  if (!b) return a;
  if (a.lines.total !== b.lines.total || a.branches.total !== b.branches.total) {
    throw new Error('mergeCoverage: the two coverages are not of the same source');
  }
  const bLines = new Set(b.missingLines);
  const missingLines = a.missingLines.filter((l) => bLines.has(l));
  const bArcs = new Set(b.missingBranchArcs.map(arcKey));
  const missingBranchArcs = a.missingBranchArcs.filter((x) => bArcs.has(arcKey(x)));
  const executed = new Map<string, [number, number]>();
  for (const x of [...a.executedArcs, ...b.executedArcs]) executed.set(arcKey(x), x);
  return {
    lines: { hit: a.lines.total - missingLines.length, total: a.lines.total },
    branches: { hit: a.branches.total - missingBranchArcs.length, total: a.branches.total },
    missingLines,
    missingBranchArcs,
    executedArcs: [...executed.values()].sort((x, y) => x[0] - y[0] || x[1] - y[1]),
  };
}

/** Statement and branch coverage as fractions (1 when there is nothing to cover). */
export function coverageRatios(c: Coverage): { statement: number; branch: number } {
  return {
    statement: c.lines.total ? c.lines.hit / c.lines.total : 1,
    branch: c.branches.total ? c.branches.hit / c.branches.total : 1,
  };
}
