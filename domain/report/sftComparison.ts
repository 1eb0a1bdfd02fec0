// A checkpoint beside its base: per setting and metric, both means with 95% bootstrap intervals and the
// paired difference checkpoint - base (paired by method, with wins / ties / losses) with its interval and
// its power (σ_d, MDE, the methods the paper's effect needs).
// Built from the report rows of the evaluation run with the report's own statistics (the same counting:
// failed and unjudged episodes as score 1 / code match 0; the same functions). Pure code.
import { gateLine, type PolicyMovedGate } from './policyMoved';
import type { ReportView } from './judgeCardView';
import {
  type EpisodeRow,
  METRIC_LABEL,
  METRICS,
  type Metric,
  metricEstimate,
  metricShown,
  pairedMetric,
  fmtPaired,
  isShare,
  POWER_HEADERS,
  POWER_TEXT,
  powerCells,
} from './summarize';
import type { BootstrapOptions, Estimate, PairedEstimate } from './stats';
import { formatTable } from './table';

export interface SftComparisonRow {
  setting: string;
  metric: Metric;
  checkpoint: Estimate;
  base: Estimate;
  diff: PairedEstimate;
}

export interface SftComparison {
  checkpointModel: string;
  baseModel: string;
  evalRunId: string;
  judgeModel: string | null;
  episodes: { checkpoint: number; base: number; failed: number; judged: number };
  rows: SftComparisonRow[];
  /** Did the checkpoint move from its base (domain/training/policyMoved.ts)? Absent in runs recorded before the gate. */
  gate?: PolicyMovedGate;
}

export function compareWithBase(
  rows: readonly EpisodeRow[],
  opts: { checkpointModel: string; baseModel: string; evalRunId: string; judgeModel: string | null; bootstrap?: Partial<BootstrapOptions> },
): SftComparison {
  const of = (model: string, setting: string) => rows.filter((r) => r.model === model && r.setting === setting);
  const settings = [...new Set(rows.map((r) => r.setting))].sort();
  const out: SftComparisonRow[] = [];
  for (const setting of settings) {
    const c = of(opts.checkpointModel, setting);
    const b = of(opts.baseModel, setting);
    for (const metric of METRICS) {
      out.push({
        setting,
        metric,
        checkpoint: metricEstimate(c, metric, 'all', opts.bootstrap),
        base: metricEstimate(b, metric, 'all', opts.bootstrap),
        diff: pairedMetric(c, b, metric, 'all', opts.bootstrap),
      });
    }
  }
  const count = (m: string) => rows.filter((r) => r.model === m).length;
  return {
    checkpointModel: opts.checkpointModel,
    baseModel: opts.baseModel,
    evalRunId: opts.evalRunId,
    judgeModel: opts.judgeModel,
    episodes: {
      checkpoint: count(opts.checkpointModel),
      base: count(opts.baseModel),
      failed: rows.filter((r) => r.status === 'failed').length,
      judged: rows.filter((r) => r.judged).length,
    },
    rows: out,
  };
}

const SHOW_ALL = { scores: true, codeMatch: true, withheld: null };
const f = (x: number | null, d = 3) => (x === null ? '-' : x.toFixed(d));
const est = (e: Estimate) => (e.mean === null ? '-' : `${f(e.mean)} [${f(e.lo)}, ${f(e.hi)}] n=${e.n}`);

/** The rows a view may show: a judge's metrics only where its card allows (judgeCardView.ts), coverage always. */
export function shownSftRows(c: SftComparison, view: Pick<ReportView, 'scores' | 'codeMatch'>): SftComparisonRow[] {
  return c.rows.filter((r) => metricShown(view, r.metric));
}

export function formatSftComparison(c: SftComparison, view: Pick<ReportView, 'scores' | 'codeMatch' | 'withheld'> = SHOW_ALL): string {
  const table = formatTable(
    ['setting', 'metric', `SFT ${c.checkpointModel}`, `base ${c.baseModel}`, 'SFT - base (paired)', ...POWER_HEADERS],
    shownSftRows(c, view).map((r) => [
      r.setting,
      METRIC_LABEL[r.metric],
      est(r.checkpoint),
      est(r.base),
      `${fmtPaired(r.diff, isShare(r.metric))} n=${r.diff.n}${r.diff.unpaired ? ` (${r.diff.unpaired} unpaired)` : ''}${c.gate && !c.gate.moved ? ' (inconclusive: the policy did not move)' : ''}`,
      ...powerCells(r.diff, r.metric),
    ]),
  );
  const e = c.episodes;
  return `${view.withheld ? `${view.withheld}\n` : ''}${table}\nevaluation run ${c.evalRunId}: ${e.checkpoint} SFT + ${e.base} base episodes, ${e.failed} failed, ${e.judged} judged by ${c.judgeModel ?? '(none)'}; failed and unjudged episodes count as score 1 / code match 0; means with 95% bootstrap intervals over methods; differences paired by method (wins/ties/losses of SFT)\n${POWER_TEXT}${c.gate ? `\ngate: ${gateLine(c.gate)}` : ''}`;
}
