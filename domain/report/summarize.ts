// A run's numbers, from one row per episode: per model x setting and per source, means with 95%
// bootstrap intervals (resampling methods) of the description score, fail rate (score <= 2), code match
// (on the held-out inputs the agent never observed, and on all of them) and coverage, counted two ways: every ended episode, with failed, cancelled, unjudged and unparsable
// ones as score 1 / fail / code match 0 (the headline: leaving them out biases the means upward), and
// judged episodes only; paired per-method differences (interactive minus in-context, and between
// models); the diagnostics breakdown; tokens and cost; the score distribution; and the tables as a view
// allows them (`TableView`: without a qualified judge or code writer, their columns are left out). Pure
// code: the rows come from reportRows.ts (or a test).
import type { JudgeMode } from '../judge/card';
import type { EpisodeDiagnostics } from '../judge/diagnostics';
import { bootstrapOverMethods, pairedDifference, type BootstrapOptions, type Estimate, type PairedEstimate } from './stats';
import { notResolved, PAPER_EFFECT, type PaperEffect, powerOf } from './power';
import { recordOf } from '../common/recordOf';

export interface EpisodeRow {
  episodeId: string;
  methodId: string;
  source: string;
  model: string;
  setting: 'interactive' | 'in-context';
  sample: number;
  status: string;
  endReason: string | null;
  /** Judged: a judgment row exists for the report's judge model. */
  judged: boolean;
  score: number | null;
  unparsable: boolean;
  codeMatch: number | null;
  /**
   * Code match over the held-out inputs the agent never observed (its calls, its examples in-context):
   * the headline's code match, alike for both settings. Null: none left, excluded, or judged before it existed.
   */
  codeMatchUnobserved?: number | null;
  statementCoverage: number | null;
  branchCoverage: number | null;
  diagnostics: Partial<EpisodeDiagnostics> | null;
  callsMade: number;
  /** In-context: how many examples the episode showed (null for interactive and older episodes). */
  inContextK?: number | null;
  /** The method is excluded from code match (no usable held-out inputs): its code match is never 0-filled. */
  codeMatchExcluded?: boolean;
  /** How the judge saw the method: with its reference description or against the code alone (absent: unknown). */
  judgeMode?: JudgeMode;
  /**
   * Its score is withheld (the judge's card did not qualify it in this method's mode): in no score or fail-rate
   * mean, never filled as a failure (withholdScoresByMode).
   */
  scoreWithheld?: boolean;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
  workflowId: string | null;
  uiLink: string | null;
}

export const METRICS = ['score', 'failRate', 'codeMatchUnobserved', 'codeMatch', 'statementCoverage', 'branchCoverage'] as const;
export type Metric = (typeof METRICS)[number];
export const METRIC_LABEL: Record<Metric, string> = {
  score: 'score (1-5)',
  failRate: 'fail rate (<=2)',
  codeMatchUnobserved: 'code match (unseen)',
  codeMatch: 'code match (all inputs)',
  statementCoverage: 'stmt cov',
  branchCoverage: 'branch cov',
};

/** The metrics that need neither judge nor code writer: coverage of the original by the observed inputs. */
export const JUDGE_FREE_METRICS = ['statementCoverage', 'branchCoverage'] as const satisfies readonly Metric[];

/** Fewer methods than this: paired differences are one line ("too few methods to compare"), not a table. */
export const MIN_METHODS_TO_COMPARE = 5;

/**
 * How a mean counts episodes. `all`: every ended episode; one that failed, was cancelled, was not judged
 * or whose judge answer was unparsable scores 1 (a failure) and code match 0 (unless its method is
 * excluded from code match). `judged`: only what the judge scored. Episodes still pending or running
 * count in neither.
 */
export type Counting = 'all' | 'judged';

export interface GroupSummary {
  model: string;
  setting: string;
  source?: string;
  episodes: number;
  /** Episodes that failed or were cancelled. */
  failedEpisodes: number;
  /** Ended without failing but not judged (by the report's judge model). */
  unjudged: number;
  /** Pending or running: in no mean yet. */
  inProgress: number;
  judged: number;
  unparsable: number;
  /** Every ended episode, failures as 1 / 0 (the headline). */
  metrics: Record<Metric, Estimate>;
  /** Judged episodes only. */
  judgedOnly: Record<Metric, Estimate>;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
  meanCalls: number | null;
  /** In-context groups: the examples shown per episode (`20`, or `3-20` when they differ). */
  k?: string;
  /** Ended episodes per end reason (`final`, `budget`, `error`, ...; `-` when none was recorded). */
  endReasons?: Record<string, number>;
  /** Over judged episodes that record it: counted held-out inputs, and how many of them the agent never observed. */
  heldout?: { counted: number; unobserved: number };
}

/** The setting as tables show it: in-context with its k beside it (`in-context (k=20)`). */
export function settingLabel(g: Pick<GroupSummary, 'setting' | 'k'>): string {
  return g.setting === 'in-context' && g.k ? `in-context (k=${g.k})` : g.setting;
}

/** Interactive minus in-context for one model, paired by method. */
export interface PairedSummary {
  model: string;
  metric: Metric;
  diff: PairedEstimate;
}

/** Model a minus model b in one setting, paired by method. */
export interface ModelPairSummary {
  setting: string;
  a: string;
  b: string;
  metric: Metric;
  diff: PairedEstimate;
}

export interface DiagnosticsSummary {
  model: string;
  setting: string;
  episodes: number;
  /** Judged episodes whose score is <= 2. */
  failures: number;
  contradictsObserved: number;
  /** Share of failures whose final description contradicts an example already seen. */
  failuresContradicting: number | null;
  /** The check's control: judged episodes where code from the gold description was checked, and the share of them that agree with every observation. */
  controlChecked: number;
  controlAgreement: number | null;
  underExplored: number;
  failuresUnderExplored: number | null;
  meanCalls: number | null;
  meanRepeatedCalls: number | null;
  meanErrors: number | null;
  meanAgentErrors: number | null;
  noCode: number;
  /** Generated code that did not compile or lacked the entry point (code match 0, reason recorded). */
  codeFailed: number;
  unparsable: number;
}

export interface ScoreDistribution {
  model: string;
  setting: string;
  counts: Record<'1' | '2' | '3' | '4' | '5' | 'unparsable', number>;
}

export interface RunSummary {
  groups: GroupSummary[];
  bySource: GroupSummary[];
  paired: PairedSummary[];
  modelPairs: ModelPairSummary[];
  diagnostics: DiagnosticsSummary[];
  distribution: ScoreDistribution[];
  totals: { episodes: number; judged: number; tokensIn: number; tokensOut: number; costUsd: number };
}

const ended = (r: Pick<EpisodeRow, 'status'>) => r.status !== 'pending' && r.status !== 'running';
const failedStatus = (r: Pick<EpisodeRow, 'status'>) => r.status === 'failed' || r.status === 'cancelled';

export function metricValue(r: EpisodeRow, m: Metric, counting: Counting = 'judged'): number | null {
  const fill = counting === 'all';
  if (fill && !ended(r)) return null;
  if (r.scoreWithheld && (m === 'score' || m === 'failRate')) return null;
  switch (m) {
    case 'score':
      return r.score ?? (fill ? 1 : null);
    case 'failRate':
      return r.score === null ? (fill ? 1 : null) : r.score <= 2 ? 1 : 0;
    case 'codeMatch':
      // A judged episode without code match had nothing to match on (its method is excluded): not a 0.
      return r.codeMatch ?? (fill && !r.judged && !r.codeMatchExcluded ? 0 : null);
    case 'codeMatchUnobserved':
      // Counted exactly as codeMatch; a judged episode without it (every input observed, or judged before it existed) is in no mean.
      return r.codeMatchUnobserved ?? (fill && !r.judged && !r.codeMatchExcluded ? 0 : null);
    case 'statementCoverage':
      return r.statementCoverage;
    case 'branchCoverage':
      return r.branchCoverage;
  }
}

const byMethod = (rows: readonly EpisodeRow[], m: Metric, counting: Counting) =>
  rows.flatMap((r) => {
    const v = metricValue(r, m, counting);
    return v === null ? [] : [{ cluster: r.methodId, key: r.methodId, value: v }];
  });

/** A metric's mean over rows with its 95% interval from resampling methods. */
export function metricEstimate(rows: readonly EpisodeRow[], m: Metric, counting: Counting, b: Partial<BootstrapOptions> = {}): Estimate {
  return bootstrapOverMethods(byMethod(rows, m, counting), b);
}

/** Rows a minus rows b on a metric, paired by method (samples averaged), with wins / ties / losses. */
export function pairedMetric(
  a: readonly EpisodeRow[],
  b: readonly EpisodeRow[],
  m: Metric,
  counting: Counting,
  bootstrap: Partial<BootstrapOptions> = {},
): PairedEstimate {
  return pairedDifference(byMethod(a, m, counting), byMethod(b, m, counting), { ...bootstrap, lowerIsBetter: m === 'failRate' });
}

const estimates = (rows: EpisodeRow[], counting: Counting, b: Partial<BootstrapOptions>) => recordOf(METRICS, (m) => metricEstimate(rows, m, counting, b));
const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
const avg = (xs: number[]) => (xs.length === 0 ? null : sum(xs) / xs.length);

function groupBy<T>(xs: T[], key: (x: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const x of xs) {
    const k = key(x);
    const list = m.get(k);
    if (list) list.push(x);
    else m.set(k, [x]);
  }
  return new Map([...m.entries()].sort(([a], [b]) => a.localeCompare(b)));
}

function summarizeGroup(rows: EpisodeRow[], b: Partial<BootstrapOptions>): Omit<GroupSummary, 'model' | 'setting'> {
  return {
    episodes: rows.length,
    failedEpisodes: rows.filter(failedStatus).length,
    unjudged: rows.filter((r) => ended(r) && !failedStatus(r) && !r.judged).length,
    inProgress: rows.filter((r) => !ended(r)).length,
    judged: rows.filter((r) => r.judged).length,
    unparsable: rows.filter((r) => r.unparsable).length,
    metrics: estimates(rows, 'all', b),
    judgedOnly: estimates(rows, 'judged', b),
    tokensIn: sum(rows.map((r) => r.tokensIn)),
    tokensOut: sum(rows.map((r) => r.tokensOut)),
    costUsd: sum(rows.map((r) => r.costUsd)),
    meanCalls: avg(rows.map((r) => r.callsMade)),
    ...kOf(rows),
    endReasons: endReasonCounts(rows),
    ...heldoutOf(rows),
  };
}

function endReasonCounts(rows: EpisodeRow[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of rows.filter(ended)) out[r.endReason ?? '-'] = (out[r.endReason ?? '-'] ?? 0) + 1;
  return out;
}

function heldoutOf(rows: EpisodeRow[]): { heldout?: { counted: number; unobserved: number } } {
  const hs = rows.flatMap((r) => {
    const h = r.diagnostics?.heldout;
    return r.judged && h && typeof h.unobserved === 'number' ? [{ counted: h.counted, unobserved: h.unobserved }] : [];
  });
  if (hs.length === 0) return {};
  return { heldout: { counted: sum(hs.map((h) => h.counted)), unobserved: sum(hs.map((h) => h.unobserved)) } };
}

/** End reasons as `final 5, budget 1` (most frequent first). */
export function endReasonsText(g: Pick<GroupSummary, 'endReasons'>): string {
  const e = Object.entries(g.endReasons ?? {}).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return e.length === 0 ? '-' : e.map(([k, n]) => `${k} ${n}`).join(', ');
}

function kOf(rows: EpisodeRow[]): { k?: string } {
  const ks = rows.map((r) => r.inContextK).filter((k): k is number => typeof k === 'number');
  if (ks.length === 0) return {};
  const lo = Math.min(...ks);
  const hi = Math.max(...ks);
  return { k: lo === hi ? String(lo) : `${lo}-${hi}` };
}

/**
 * Whether the rows carry code match on unseen inputs at all: a run judged before it existed has it on no
 * episode, and 0-filling its failed episodes would make a mean of failures alone, so there it stays empty.
 */
export function hasUnseenCodeMatch(rows: readonly EpisodeRow[]): boolean {
  return rows.some((r) => typeof r.diagnostics?.heldout?.unobserved === 'number' || (r.judged && r.codeMatchUnobserved != null));
}

export function summarize(rows: EpisodeRow[], bootstrap: Partial<BootstrapOptions> = {}): RunSummary {
  const unseen = hasUnseenCodeMatch(rows);
  const group = (g: EpisodeRow[]) => {
    const s = summarizeGroup(g, bootstrap);
    if (unseen) return s;
    const none = bootstrapOverMethods([], bootstrap);
    return { ...s, metrics: { ...s.metrics, codeMatchUnobserved: none }, judgedOnly: { ...s.judgedOnly, codeMatchUnobserved: none } };
  };
  const pairedMetrics = PAIRED_METRICS.filter((m) => unseen || m !== 'codeMatchUnobserved');
  const groups: GroupSummary[] = [];
  for (const [, g] of groupBy(rows, (r) => `${r.model}\u0000${r.setting}`)) {
    groups.push({ model: g[0]!.model, setting: g[0]!.setting, ...group(g) });
  }
  const bySource: GroupSummary[] = [];
  for (const [, g] of groupBy(rows, (r) => `${r.source}\u0000${r.model}\u0000${r.setting}`)) {
    bySource.push({ source: g[0]!.source, model: g[0]!.model, setting: g[0]!.setting, ...group(g) });
  }
  const paired: PairedSummary[] = [];
  for (const [model, g] of groupBy(rows, (r) => r.model)) {
    const inter = g.filter((r) => r.setting === 'interactive');
    const inCtx = g.filter((r) => r.setting === 'in-context');
    if (inter.length === 0 || inCtx.length === 0) continue;
    for (const metric of pairedMetrics) paired.push({ model, metric, diff: pairedMetric(inter, inCtx, metric, 'all', bootstrap) });
  }
  const modelPairs: ModelPairSummary[] = [];
  for (const [setting, g] of groupBy(rows, (r) => r.setting)) {
    const byModel = [...groupBy(g, (r) => r.model).entries()];
    for (let i = 0; i < byModel.length; i++)
      for (let j = i + 1; j < byModel.length; j++) {
        const [a, ra] = byModel[i]!;
        const [b, rb] = byModel[j]!;
        for (const metric of pairedMetrics) modelPairs.push({ setting, a, b, metric, diff: pairedMetric(ra, rb, metric, 'all', bootstrap) });
      }
  }
  const diagnostics: DiagnosticsSummary[] = [];
  for (const [, g] of groupBy(rows, (r) => `${r.model}\u0000${r.setting}`)) {
    const judged = g.filter((r) => r.judged);
    const failures = judged.filter((r) => r.score !== null && r.score <= 2);
    const d = (r: EpisodeRow) => r.diagnostics ?? {};
    const share = (xs: EpisodeRow[], pred: (r: EpisodeRow) => boolean) => (xs.length === 0 ? null : xs.filter(pred).length / xs.length);
    const num = (f: (x: Partial<EpisodeDiagnostics>) => number | null | undefined) =>
      avg(judged.map((r) => f(d(r))).filter((v): v is number => typeof v === 'number'));
    diagnostics.push({
      model: g[0]!.model,
      setting: g[0]!.setting,
      episodes: g.length,
      failures: failures.length,
      contradictsObserved: judged.filter((r) => d(r).contradictsObserved === true).length,
      failuresContradicting: share(failures, (r) => d(r).contradictsObserved === true),
      ...control(judged.map((r) => d(r).goldControl?.agrees)),
      underExplored: judged.filter((r) => d(r).underExplored === true).length,
      failuresUnderExplored: share(failures, (r) => d(r).underExplored === true),
      meanCalls: num((x) => x.calls),
      meanRepeatedCalls: num((x) => x.repeatedCalls),
      meanErrors: num((x) => x.errors),
      meanAgentErrors: num((x) => x.agentErrors),
      noCode: judged.filter((r) => d(r).noCode === true).length,
      codeFailed: judged.filter((r) => d(r).codeFailure != null).length,
      unparsable: judged.filter((r) => r.unparsable).length,
    });
  }
  const distribution: ScoreDistribution[] = [];
  for (const [, g] of groupBy(rows, (r) => `${r.model}\u0000${r.setting}`)) {
    const counts = { '1': 0, '2': 0, '3': 0, '4': 0, '5': 0, unparsable: 0 };
    for (const r of g) {
      if (r.unparsable) counts.unparsable++;
      else if (r.score !== null) counts[String(r.score) as '1'] += 1;
    }
    distribution.push({ model: g[0]!.model, setting: g[0]!.setting, counts });
  }
  return {
    groups,
    bySource,
    paired,
    modelPairs,
    diagnostics,
    distribution,
    totals: {
      episodes: rows.length,
      judged: rows.filter((r) => r.judged).length,
      tokensIn: sum(rows.map((r) => r.tokensIn)),
      tokensOut: sum(rows.map((r) => r.tokensOut)),
      costUsd: sum(rows.map((r) => r.costUsd)),
    },
  };
}

/** Formats an estimate as `2.41 [2.10, 2.72]`; percentages for shares. */
export function fmtEstimate(e: Estimate, percent = false): string {
  if (e.mean === null) return '-';
  const f = (x: number | null) => (x === null ? '?' : percent ? `${(100 * x).toFixed(1)}%` : x.toFixed(2));
  return e.n > 1 ? `${f(e.mean)} [${f(e.lo)}, ${f(e.hi)}]` : f(e.mean);
}

export const isShare = (m: Metric) => m !== 'score';

/** The metrics paired differences are given for. */
export const PAIRED_METRICS = ['score', 'failRate', 'codeMatchUnobserved'] as const satisfies readonly Metric[];

/** Episodes in no judged mean: `2 failed, 1 unjudged, 1 unparsable` (or `0`). */
export function notScoredText(g: Pick<GroupSummary, 'failedEpisodes' | 'unjudged' | 'unparsable' | 'inProgress'>): string {
  const parts = [
    g.failedEpisodes ? `${g.failedEpisodes} failed` : '',
    g.unjudged ? `${g.unjudged} unjudged` : '',
    g.unparsable ? `${g.unparsable} unparsable` : '',
    g.inProgress ? `${g.inProgress} in progress` : '',
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : '0';
}

/** A paired difference as `+0.40 [0.10, 0.70] 6/3/1` (wins / ties / losses of the first side). */
export function fmtPaired(d: PairedEstimate, percent = false): string {
  if (d.mean === null) return '-';
  const sign = d.mean >= 0 ? '+' : '';
  return `${sign}${fmtEstimate(d, percent)} ${d.wins}/${d.ties}/${d.losses}`;
}

/** The paper's effect a metric's difference is held against (power.ts PAPER_EFFECT); none for the fail rate and coverage. */
export function paperEffectOf(m: Metric): PaperEffect | null {
  if (m === 'score') return 'score';
  if (m === 'codeMatch' || m === 'codeMatchUnobserved') return 'codeMatch';
  return null;
}

/** The power columns every paired table has beside the difference (power.ts): σ_d, the MDE at 80 % power for this n, the methods the paper's effect needs. */
export const POWER_HEADERS = ['σ_d', 'MDE (80 %)', "n for paper's effect"] as const;

/** What the power columns say, under every paired table of the HTML reports. */
export const POWER_TEXT =
  'σ_d: the standard deviation of the per-method differences; MDE (80 %): the smallest difference this many methods detect with 80 % power at two-sided α = 0.05, 2.80 · σ_d / √n (a difference below it is not resolved at this n: no evidence either way); ' +
  "n for paper's effect: the methods this σ_d needs to detect the paper's effect δ named in the cell, (2.80 · σ_d / δ)².";

/**
 * A paired difference's power cells, in the difference's unit (score points; percentage points for shares):
 * `0.95`, `0.84 (not resolved at this n)` when |difference| < MDE, `465 for ±0.13`; `-` where unknown (fewer
 * than two pairs, a document stored before σ_d) or where the paper has no effect on the metric.
 */
export function powerCells(d: PairedEstimate, m: Metric): [string, string, string] {
  const p = powerOf(d);
  const f = (x: number | null) => (x === null ? '-' : isShare(m) ? `${(100 * x).toFixed(1)} pts` : x.toFixed(2));
  const effect = paperEffectOf(m);
  const needed = effect === null ? null : p.nFor[effect];
  return [
    f(p.sd),
    p.mde === null ? '-' : `${f(p.mde)}${notResolved(d.mean, p.mde) ? ' (not resolved at this n)' : ''}`,
    effect === null || needed === null ? '-' : `${needed} for ±${f(PAPER_EFFECT[effect])}`,
  ];
}

/**
 * The same cells as a suffix for a line of text, named by their headers:
 * ` (σ_d 0.95, MDE (80 %) 0.84 (not resolved at this n), n for paper's effect 465 for ±0.13)`; empty without σ_d.
 */
export function powerSuffix(d: PairedEstimate, m: Metric): string {
  const cells = powerCells(d, m);
  if (cells[0] === '-') return '';
  const named = POWER_HEADERS.map((h, i) => [h, cells[i]] as const).filter(([, c]) => c !== '-');
  return ` (${named.map(([h, c]) => `${h} ${c}`).join(', ')})`;
}

/** How many gold-code controls were checked, and the share that agreed with every observation. */
function control(agrees: (boolean | null | undefined)[]): { controlChecked: number; controlAgreement: number | null } {
  const checked = agrees.filter((a): a is boolean => typeof a === 'boolean');
  return { controlChecked: checked.length, controlAgreement: checked.length === 0 ? null : checked.filter(Boolean).length / checked.length };
}

const byHeadline = (a: GroupSummary, b: GroupSummary) =>
  (b.metrics.score.mean ?? -1) - (a.metrics.score.mean ?? -1) || a.model.localeCompare(b.model) || a.setting.localeCompare(b.setting);
const byCodeMatch = (a: GroupSummary, b: GroupSummary) =>
  (b.metrics.codeMatchUnobserved.mean ?? -1) - (a.metrics.codeMatchUnobserved.mean ?? -1) ||
  a.model.localeCompare(b.model) ||
  a.setting.localeCompare(b.setting);

/** What the tables may show (from the judge card: domain/report/judgeCardView.ts); the default shows everything. */
export interface TableView {
  scores: boolean;
  codeMatch: boolean;
  /** The card's empty-description code match: shown as `code match - floor` beside code match. */
  emptyFloor?: number | null;
  /** The judge's near-miss gap when it does not resolve the middle of the scale: smaller score differences are marked. */
  nearMissGap?: number | null;
}

/** A paired score difference smaller than the judge's near-miss gap: marked, as the judge does not resolve it. */
export function belowGapText(d: Pick<PairedEstimate, 'mean'>, m: Metric, gap: number | null | undefined): string {
  return m === 'score' && gap != null && d.mean !== null && Math.abs(d.mean) < gap ? ` (under the judge's near-miss gap ${gap.toFixed(2)}: not resolved)` : '';
}
const SHOW_ALL: TableView = { scores: true, codeMatch: true };

/** Whether a view shows a metric: scores need a qualified judge, code match a qualified coder, coverage nothing. */
export function metricShown(v: Pick<TableView, 'scores' | 'codeMatch'>, m: Metric): boolean {
  if (m === 'score' || m === 'failRate') return v.scores;
  if (m === 'codeMatch' || m === 'codeMatchUnobserved') return v.codeMatch;
  return true;
}

/** `+12.0 pts` over the floor (percentage points); `-` when either is unknown. */
export function overFloor(e: Estimate, floor: number | null | undefined): string {
  if (e.mean === null || floor === null || floor === undefined) return '-';
  const d = 100 * (e.mean - floor);
  return `${d >= 0 ? '+' : ''}${d.toFixed(1)} pts`;
}

/**
 * The headline table: rows of model x setting; every ended episode counted (failures as score 1 / code
 * match 0), with the episodes that were not scored shown. Code match is over the held-out inputs the agent
 * never observed. With scores withheld (an unqualified judge), the judge-free columns instead: calls,
 * coverage, code match when the coder qualified, end reasons.
 */
export function headlineRows(s: RunSummary, v: TableView = SHOW_ALL): { headers: string[]; rows: string[][] } {
  const floor = v.codeMatch && v.emptyFloor !== undefined && v.emptyFloor !== null;
  const cm = (g: GroupSummary) =>
    v.codeMatch ? [fmtEstimate(g.metrics.codeMatchUnobserved, true), ...(floor ? [overFloor(g.metrics.codeMatchUnobserved, v.emptyFloor)] : [])] : [];
  const cmHead = v.codeMatch ? [METRIC_LABEL.codeMatchUnobserved, ...(floor ? ['over empty floor'] : [])] : [];
  const cov = (g: GroupSummary) => JUDGE_FREE_METRICS.map((m) => fmtEstimate(g.metrics[m], true));
  const covHead = JUDGE_FREE_METRICS.map((m) => METRIC_LABEL[m]);
  if (!v.scores) {
    const headers = ['model', 'setting', 'episodes', 'not scored', 'calls', ...covHead, ...cmHead, 'end reasons'];
    const rows = [...s.groups]
      .sort(v.codeMatch ? byCodeMatch : (a, b) => a.model.localeCompare(b.model) || a.setting.localeCompare(b.setting))
      .map((g) => [
        g.model,
        settingLabel(g),
        String(g.episodes),
        notScoredText(g),
        g.meanCalls === null ? '-' : g.meanCalls.toFixed(1),
        ...cov(g),
        ...cm(g),
        endReasonsText(g),
      ]);
    return { headers, rows };
  }
  const headers = ['model', 'setting', 'n', 'not scored', METRIC_LABEL.score, METRIC_LABEL.failRate, ...cmHead, ...covHead, 'cost $'];
  const rows = [...s.groups]
    .sort(byHeadline)
    .map((g) => [
      g.model,
      settingLabel(g),
      `${g.judged}/${g.episodes}`,
      notScoredText(g),
      fmtEstimate(g.metrics.score),
      fmtEstimate(g.metrics.failRate, true),
      ...cm(g),
      ...cov(g),
      g.costUsd.toFixed(4),
    ]);
  return { headers, rows };
}

/** The same groups counted over judged episodes only (beside the headline). */
export function judgedOnlyRows(s: RunSummary, v: TableView = SHOW_ALL): { headers: string[]; rows: string[][] } {
  const shown: Metric[] = [...(v.scores ? (['score', 'failRate'] as const) : []), ...(v.codeMatch ? (['codeMatchUnobserved', 'codeMatch'] as const) : [])];
  const headers = ['model', 'setting', 'judged', ...shown.map((m) => METRIC_LABEL[m])];
  const rows = [...s.groups]
    .sort(v.scores ? byHeadline : byCodeMatch)
    .map((g) => [g.model, settingLabel(g), String(g.judged), ...shown.map((m) => fmtEstimate(g.judgedOnly[m], isShare(m)))]);
  return { headers, rows };
}

/**
 * Code match on the unseen held-out inputs beside code match on all of them (the secondary figure: it
 * also counts inputs the agent observed itself, which interactive agents do and in-context ones never),
 * with how many counted inputs were unseen. Counted as in the headline.
 */
export function codeMatchRows(s: RunSummary): { headers: string[]; rows: string[][] } {
  const headers = ['model', 'setting', METRIC_LABEL.codeMatchUnobserved, METRIC_LABEL.codeMatch, 'held-out inputs unseen'];
  const rows = [...s.groups]
    .sort(byCodeMatch)
    .map((g) => [
      g.model,
      settingLabel(g),
      fmtEstimate(g.metrics.codeMatchUnobserved, true),
      fmtEstimate(g.metrics.codeMatch, true),
      g.heldout ? `${g.heldout.unobserved}/${g.heldout.counted}` : '-',
    ]);
  return { headers, rows };
}

/**
 * Paired per-method differences: interactive minus in-context per model, then model a minus model b per
 * setting, for the metrics the view shows, each with its power cells (powerCells). A comparison over fewer
 * than `minMethods` methods is left out (its interval says nothing); when every one is, `tooFew` is the one
 * line shown instead of the table.
 */
export function pairedRows(
  s: RunSummary,
  v: TableView = SHOW_ALL,
  minMethods = MIN_METHODS_TO_COMPARE,
): { headers: string[]; rows: string[][]; tooFew: string | null; leftOut: number } {
  const headers = ['comparison', 'metric', 'a - b [95% CI] wins/ties/losses', 'methods', 'unpaired', ...POWER_HEADERS];
  const all = [
    ...s.paired.map((p) => ({ label: `${p.model}: interactive - in-context`, metric: p.metric, diff: p.diff })),
    ...s.modelPairs.map((p) => ({ label: `${p.setting}: ${p.a} - ${p.b}`, metric: p.metric, diff: p.diff })),
  ].filter((p) => metricShown(v, p.metric));
  const kept = all.filter((p) => p.diff.n >= minMethods);
  const rows = kept.map((p) => [
    p.label,
    METRIC_LABEL[p.metric],
    fmtPaired(p.diff, isShare(p.metric)) + belowGapText(p.diff, p.metric, v.nearMissGap),
    String(p.diff.n),
    String(p.diff.unpaired),
    ...powerCells(p.diff, p.metric),
  ]);
  const maxN = Math.max(0, ...all.map((p) => p.diff.n));
  const tooFew = all.length > 0 && kept.length === 0 ? `n = ${maxN}: too few methods to compare (paired differences need at least ${minMethods})` : null;
  return { headers, rows, tooFew, leftOut: all.length - kept.length };
}

export interface GroupDelta {
  model: string;
  setting: string;
  metric: Metric;
  current: number | null;
  previous: number | null;
  delta: number | null;
}

/** Per model x setting and metric: this run's mean minus the compared run's. */
export function compareSummaries(current: RunSummary, previous: RunSummary): GroupDelta[] {
  const out: GroupDelta[] = [];
  const prev = new Map(previous.groups.map((g) => [`${g.model}\u0000${g.setting}`, g]));
  for (const g of current.groups) {
    const p = prev.get(`${g.model}\u0000${g.setting}`);
    for (const metric of METRICS) {
      const c = g.metrics[metric].mean;
      const q = p?.metrics[metric].mean ?? null;
      out.push({ model: g.model, setting: g.setting, metric, current: c, previous: q, delta: c !== null && q !== null ? c - q : null });
    }
  }
  return out;
}
