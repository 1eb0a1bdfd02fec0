// Regressions of a run against an earlier one: a group's mean that falls outside the earlier run's 95%
// bootstrap interval in the bad direction. Both runs' intervals come from the same seeded bootstrap.
import type { Metric, RunSummary } from './summarize';

/** Metrics where a higher value is worse. */
const LOWER_IS_BETTER: ReadonlySet<Metric> = new Set<Metric>(['failRate']);

export interface Regression {
  model: string;
  setting: string;
  metric: Metric;
  current: number;
  previous: number;
  previousLo: number;
  previousHi: number;
}

export function findRegressions(current: RunSummary, previous: RunSummary): Regression[] {
  const prev = new Map(previous.groups.map((g) => [`${g.model}\u0000${g.setting}`, g]));
  const out: Regression[] = [];
  for (const g of current.groups) {
    const p = prev.get(`${g.model}\u0000${g.setting}`);
    if (!p) continue;
    for (const [metric, est] of Object.entries(g.metrics) as [Metric, (typeof g.metrics)[Metric]][]) {
      const before = p.metrics[metric];
      if (est.mean === null || before.mean === null || before.lo === null || before.hi === null) continue;
      const worse = LOWER_IS_BETTER.has(metric) ? est.mean > before.hi : est.mean < before.lo;
      if (worse)
        out.push({ model: g.model, setting: g.setting, metric, current: est.mean, previous: before.mean, previousLo: before.lo, previousHi: before.hi });
    }
  }
  return out;
}

export function describeRegression(r: Regression): string {
  return `REGRESSION ${r.model} · ${r.setting} · ${r.metric}: ${r.current.toFixed(3)} vs ${r.previous.toFixed(3)} (previous 95% CI ${r.previousLo.toFixed(3)}–${r.previousHi.toFixed(3)})`;
}
