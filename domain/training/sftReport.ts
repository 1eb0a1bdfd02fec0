// A checkpoint beside its base: per setting and metric, both means with 95% bootstrap intervals and the
// paired difference checkpoint - base (paired by method and sample) with its interval. Built from the
// report rows of the evaluation run, with the report's own statistics. Pure code.
import { type EpisodeRow, METRIC_LABEL, METRICS, type Metric, metricValue } from '../report/summarize';
import { bootstrapMean, type BootstrapOptions, type Estimate, pairedDifference } from '../report/stats';
import { formatTable } from '../report/table';

export interface SftComparisonRow {
  setting: string;
  metric: Metric;
  checkpoint: Estimate;
  base: Estimate;
  diff: Estimate & { unpaired: number };
}

export interface SftComparison {
  checkpointModel: string;
  baseModel: string;
  evalRunId: string;
  judgeModel: string | null;
  episodes: { checkpoint: number; base: number; failed: number; judged: number };
  rows: SftComparisonRow[];
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
      const vals = (xs: EpisodeRow[]) => xs.map((r) => ({ key: `${r.methodId}#${r.sample}`, value: metricValue(r, metric) ?? Number.NaN }));
      out.push({
        setting,
        metric,
        checkpoint: bootstrapMean(
          vals(c).map((p) => p.value),
          opts.bootstrap,
        ),
        base: bootstrapMean(
          vals(b).map((p) => p.value),
          opts.bootstrap,
        ),
        diff: pairedDifference(vals(c), vals(b), opts.bootstrap),
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

const f = (x: number | null, d = 3) => (x === null ? '-' : x.toFixed(d));
const est = (e: Estimate) => (e.mean === null ? '-' : `${f(e.mean)} [${f(e.lo)}, ${f(e.hi)}] n=${e.n}`);

export function formatSftComparison(c: SftComparison): string {
  const table = formatTable(
    ['setting', 'metric', `SFT ${c.checkpointModel}`, `base ${c.baseModel}`, 'SFT - base (paired)'],
    c.rows.map((r) => [
      r.setting,
      METRIC_LABEL[r.metric],
      est(r.checkpoint),
      est(r.base),
      `${est(r.diff)}${r.diff.unpaired ? ` (${r.diff.unpaired} unpaired)` : ''}`,
    ]),
  );
  const e = c.episodes;
  return `${table}\nevaluation run ${c.evalRunId}: ${e.checkpoint} SFT + ${e.base} base episodes, ${e.failed} failed, ${e.judged} judged by ${c.judgeModel ?? '(none)'}; means with 95% bootstrap intervals`;
}
