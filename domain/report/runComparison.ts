// A benchmark run beside another (`pau report --compare A,B`, any two runs): for each model x setting both
// ran, paired per-method differences A - B over the methods both ran, with 95% bootstrap intervals
// (stats.ts pairedDifference, through summarize.ts pairedMetric) with their power (σ_d, MDE, the methods the
// paper's effects need: power.ts), one plot of them, and the methods that moved most, each linked to its
// transcript in both runs. Counted as in the headline (every ended episode). Pure code.
import { esc, table } from './html';
import type { ReportView } from './judgeCardView';
import type { BootstrapOptions, PairedEstimate } from './stats';
import {
  type EpisodeRow,
  fmtPaired,
  isShare,
  METRIC_LABEL,
  MIN_METHODS_TO_COMPARE,
  type Metric,
  metricShown,
  metricValue,
  POWER_HEADERS,
  POWER_TEXT,
  pairedMetric,
  powerCells,
} from './summarize';
import { transcriptHref } from './transcriptLinks';

/** The metrics compared: the judge's, code match on unseen inputs, and the judge-free coverage. */
export const COMPARE_METRICS = ['score', 'failRate', 'codeMatchUnobserved', 'statementCoverage', 'branchCoverage'] as const satisfies readonly Metric[];

/** One model x setting on one metric: this run minus the other, paired by method. */
export interface ComparedPair {
  model: string;
  setting: string;
  metric: Metric;
  diff: PairedEstimate;
}

/** A method whose per-method mean moved between the runs, with an episode of it in each (for the links). */
export interface Mover {
  model: string;
  setting: string;
  methodId: string;
  metric: Metric;
  current: number;
  previous: number;
  delta: number;
  currentEpisode: string;
  previousEpisode: string;
}

export interface RunComparison {
  paired: ComparedPair[];
  /** Per metric, the methods that moved most (largest |delta| first), at most MOVERS_SHOWN. */
  movers: Mover[];
}

export const MOVERS_SHOWN = 10;

const keyOf = (r: Pick<EpisodeRow, 'model' | 'setting'>) => `${r.model}\u0000${r.setting}`;

export function compareRuns(current: readonly EpisodeRow[], previous: readonly EpisodeRow[], bootstrap: Partial<BootstrapOptions> = {}): RunComparison {
  const groups = [...new Set(current.map(keyOf))].filter((k) => previous.some((r) => keyOf(r) === k)).sort();
  const paired: ComparedPair[] = [];
  const movers: Mover[] = [];
  for (const k of groups) {
    const a = current.filter((r) => keyOf(r) === k);
    const b = previous.filter((r) => keyOf(r) === k);
    const { model, setting } = a[0]!;
    for (const metric of COMPARE_METRICS) {
      const diff = pairedMetric(a, b, metric, 'all', bootstrap);
      if (diff.n === 0) continue;
      paired.push({ model, setting, metric, diff });
      movers.push(...methodDeltas(a, b, metric));
    }
  }
  const top = COMPARE_METRICS.flatMap((m) =>
    movers
      .filter((x) => x.metric === m && Math.abs(x.delta) > 1e-9)
      .sort((x, y) => Math.abs(y.delta) - Math.abs(x.delta) || x.methodId.localeCompare(y.methodId) || x.model.localeCompare(y.model))
      .slice(0, MOVERS_SHOWN),
  );
  return { paired, movers: top };
}

/** Per method of one model x setting: its mean in each run (samples averaged) and an episode of it in each. */
function methodDeltas(a: readonly EpisodeRow[], b: readonly EpisodeRow[], metric: Metric): Mover[] {
  const side = (rows: readonly EpisodeRow[]) => {
    const by = new Map<string, { sum: number; n: number; episode: string }>();
    for (const r of [...rows].sort((x, y) => x.sample - y.sample)) {
      const v = metricValue(r, metric, 'all');
      if (v === null) continue;
      const t = by.get(r.methodId) ?? { sum: 0, n: 0, episode: r.episodeId };
      t.sum += v;
      t.n += 1;
      by.set(r.methodId, t);
    }
    return by;
  };
  const sa = side(a);
  const sb = side(b);
  const out: Mover[] = [];
  for (const [methodId, x] of sa) {
    const y = sb.get(methodId);
    if (!y) continue;
    const current = x.sum / x.n;
    const previous = y.sum / y.n;
    out.push({
      model: a[0]!.model,
      setting: a[0]!.setting,
      methodId,
      metric,
      current,
      previous,
      delta: current - previous,
      currentEpisode: x.episode,
      previousEpisode: y.episode,
    });
  }
  return out;
}

/** The first metric the view shows, in the order the comparison leads with. */
export function leadMetric(view: Pick<ReportView, 'scores' | 'codeMatch'>): Metric {
  return COMPARE_METRICS.find((m) => metricShown(view, m)) ?? 'statementCoverage';
}

/** Dot and whisker of the paired differences on one metric, one row per model x setting, with the zero line. */
export function pairedDiffPlotSvg(pairs: readonly ComparedPair[], metric: Metric, title: string): string {
  const rows = pairs.filter((p) => p.metric === metric && p.diff.mean !== null);
  const share = isShare(metric);
  const span = share ? 1 : 4;
  const rowH = 24;
  const m = { l: 268, r: 16, t: 28, b: 34 };
  const W = 548;
  const H = m.t + m.b + rowH * Math.max(1, rows.length);
  const pw = W - m.l - m.r;
  const x = (v: number) => m.l + (pw * (Math.min(span, Math.max(-span, v)) + span)) / (2 * span);
  const fmt = (v: number) => (share ? `${v > 0 ? '+' : ''}${Math.round(100 * v)}%` : `${v > 0 ? '+' : ''}${v.toFixed(share ? 2 : 1)}`);
  const parts: string[] = [`<text x="${m.l + pw / 2}" y="16" text-anchor="middle" font-size="13" font-weight="600">${esc(title)}</text>`];
  for (const t of [-1, -0.5, 0, 0.5, 1].map((f) => f * span)) {
    parts.push(
      `<line x1="${x(t)}" x2="${x(t)}" y1="${m.t}" y2="${H - m.b}" stroke="${t === 0 ? '#888' : '#e3e3e3'}"${t === 0 ? ' stroke-dasharray="4 3"' : ''}/><text x="${x(t)}" y="${H - m.b + 16}" text-anchor="middle" font-size="11">${fmt(t)}</text>`,
    );
  }
  if (rows.length === 0) parts.push(`<text x="${m.l + 4}" y="${m.t + rowH / 2 + 4}" font-size="11" fill="#888">no shared methods</text>`);
  rows.forEach((p, i) => {
    const y = m.t + rowH * i + rowH / 2;
    const label = `${p.model} / ${p.setting}`;
    parts.push(`<text x="${m.l - 8}" y="${y + 4}" text-anchor="end" font-size="11">${esc(label.length > 46 ? `…${label.slice(-45)}` : label)}</text>`);
    const d = p.diff;
    const colour = (d.lo ?? 0) > 0 ? '#59a14f' : (d.hi ?? 0) < 0 ? '#e15759' : '#4e79a7';
    if (d.lo !== null && d.hi !== null)
      parts.push(`<line x1="${x(d.lo).toFixed(1)}" x2="${x(d.hi).toFixed(1)}" y1="${y}" y2="${y}" stroke="${colour}" stroke-width="2"/>`);
    parts.push(
      `<circle cx="${x(d.mean!).toFixed(1)}" cy="${y}" r="5" fill="${colour}"><title>${esc(`${label}: ${fmtPaired(d, share)} over ${d.n} methods`)}</title></circle>`,
    );
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(title)}">${parts.join('')}</svg>`;
}

/** The paired table of a comparison on `metrics` as the view allows them (the HTML section and the terminal print these rows). */
export function comparedRows(
  c: RunComparison,
  view: Pick<ReportView, 'scores' | 'codeMatch'>,
  metrics: readonly Metric[] = COMPARE_METRICS,
): { headers: string[]; rows: string[][] } {
  const headers = ['model / setting', 'metric', 'this run - other [95% CI] wins/ties/losses', 'methods', 'unpaired', ...POWER_HEADERS];
  const rows = c.paired
    .filter((p) => metrics.includes(p.metric) && metricShown(view, p.metric))
    .map((p) => [
      `${p.model} / ${p.setting}`,
      METRIC_LABEL[p.metric],
      fmtPaired(p.diff, isShare(p.metric)),
      String(p.diff.n),
      String(p.diff.unpaired),
      ...powerCells(p.diff, p.metric),
    ]);
  return { headers, rows };
}

/** The report's section: the plot on the lead metric, the paired table, the methods that moved most with both transcripts. */
export function comparisonSection(runId: string, other: string, c: RunComparison, view: Pick<ReportView, 'scores' | 'codeMatch'>): string {
  const lead = leadMetric(view);
  const shown = c.paired.filter((p) => metricShown(view, p.metric));
  if (shown.length === 0) return `<h3>Paired by method</h3><p>No model × setting ran the same methods in both runs: nothing to pair.</p>`;
  const t = comparedRows(c, view);
  const fmt = (v: number) => (isShare(lead) ? `${(100 * v).toFixed(0)}%` : v.toFixed(2));
  const movers = c.movers
    .filter((m) => m.metric === lead)
    .map((m) => [
      esc(m.methodId),
      esc(`${m.model} / ${m.setting}`),
      esc(fmt(m.current)),
      esc(fmt(m.previous)),
      esc(`${m.delta >= 0 ? '+' : ''}${isShare(lead) ? `${(100 * m.delta).toFixed(0)} pts` : m.delta.toFixed(2)}`),
      `<a href="${esc(transcriptHref(runId, m.currentEpisode))}">this run</a> · <a href="${esc(transcriptHref(other, m.previousEpisode))}">${esc(other)}</a>`,
    ]);
  return (
    `<h3>Paired by method</h3><p>For each model × setting both runs ran: per method, the mean over its samples in each run (all episodes counted, as in the headline), then the mean of the per-method differences (this run minus ${esc(other)}) with a 95% bootstrap interval over methods; wins/ties/losses: methods where this run is better / equal / worse (for the fail rate, lower is better). Methods run by only one side are counted as unpaired and left out. ${esc(POWER_TEXT)}</p>` +
    (shown.some((p) => p.diff.n < MIN_METHODS_TO_COMPARE)
      ? `<p class="withheld">Some pairs cover fewer than ${MIN_METHODS_TO_COMPARE} methods: their intervals say little.</p>`
      : '') +
    `<div class="plots">${pairedDiffPlotSvg(c.paired, lead, `${METRIC_LABEL[lead]}: this run − ${other}`)}</div>` +
    table(t.headers, t.rows) +
    `<h3>Methods that moved most (${esc(METRIC_LABEL[lead])})</h3>` +
    (movers.length > 0
      ? `<div class="movers">${table(['method', 'model / setting', 'this run', esc(other), 'moved', 'transcripts'], movers, [0, 1, 2, 3, 4, 5])}</div>`
      : '<p>No method moved.</p>')
  );
}
