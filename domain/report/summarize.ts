// A run's numbers, from one row per episode: per model x setting and per source, means with 95%
// bootstrap intervals of the description score, fail rate (score <= 2), code match and coverage;
// interactive minus in-context paired differences (by method and sample); the diagnostics breakdown;
// tokens and cost; the score distribution. Pure code: the rows come from reportRows.ts (or a test).
import type { EpisodeDiagnostics } from '../judge/diagnostics';
import { bootstrapMean, pairedDifference, type BootstrapOptions, type Estimate } from './stats';

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
  statementCoverage: number | null;
  branchCoverage: number | null;
  diagnostics: Partial<EpisodeDiagnostics> | null;
  callsMade: number;
  /** In-context: how many examples the episode showed (null for interactive and older episodes). */
  inContextK?: number | null;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
  workflowId: string | null;
  uiLink: string | null;
}

export const METRICS = ['score', 'failRate', 'codeMatch', 'statementCoverage', 'branchCoverage'] as const;
export type Metric = (typeof METRICS)[number];
export const METRIC_LABEL: Record<Metric, string> = {
  score: 'score (1-5)',
  failRate: 'fail rate (<=2)',
  codeMatch: 'code match',
  statementCoverage: 'stmt cov',
  branchCoverage: 'branch cov',
};

export interface GroupSummary {
  model: string;
  setting: string;
  source?: string;
  episodes: number;
  failedEpisodes: number;
  judged: number;
  unparsable: number;
  metrics: Record<Metric, Estimate>;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
  meanCalls: number | null;
  /** In-context groups: the examples shown per episode (`20`, or `3-20` when they differ). */
  k?: string;
}

/** The setting as tables show it: in-context with its k beside it (`in-context (k=20)`). */
export function settingLabel(g: Pick<GroupSummary, 'setting' | 'k'>): string {
  return g.setting === 'in-context' && g.k ? `in-context (k=${g.k})` : g.setting;
}

export interface PairedSummary {
  model: string;
  metric: Metric;
  diff: Estimate & { unpaired: number };
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
  diagnostics: DiagnosticsSummary[];
  distribution: ScoreDistribution[];
  totals: { episodes: number; judged: number; tokensIn: number; tokensOut: number; costUsd: number };
}

export function metricValue(r: EpisodeRow, m: Metric): number | null {
  switch (m) {
    case 'score':
      return r.score;
    case 'failRate':
      return r.score === null ? null : r.score <= 2 ? 1 : 0;
    case 'codeMatch':
      return r.codeMatch;
    case 'statementCoverage':
      return r.statementCoverage;
    case 'branchCoverage':
      return r.branchCoverage;
  }
}

const values = (rows: EpisodeRow[], m: Metric) => rows.map((r) => metricValue(r, m)).filter((v): v is number => v !== null && Number.isFinite(v));
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
  const metrics = Object.fromEntries(METRICS.map((m) => [m, bootstrapMean(values(rows, m), b)])) as Record<Metric, Estimate>;
  return {
    episodes: rows.length,
    failedEpisodes: rows.filter((r) => r.status === 'failed').length,
    judged: rows.filter((r) => r.judged).length,
    unparsable: rows.filter((r) => r.unparsable).length,
    metrics,
    tokensIn: sum(rows.map((r) => r.tokensIn)),
    tokensOut: sum(rows.map((r) => r.tokensOut)),
    costUsd: sum(rows.map((r) => r.costUsd)),
    meanCalls: avg(rows.map((r) => r.callsMade)),
    ...kOf(rows),
  };
}

function kOf(rows: EpisodeRow[]): { k?: string } {
  const ks = rows.map((r) => r.inContextK).filter((k): k is number => typeof k === 'number');
  if (ks.length === 0) return {};
  const lo = Math.min(...ks);
  const hi = Math.max(...ks);
  return { k: lo === hi ? String(lo) : `${lo}-${hi}` };
}

export function summarize(rows: EpisodeRow[], bootstrap: Partial<BootstrapOptions> = {}): RunSummary {
  const groups: GroupSummary[] = [];
  for (const [, g] of groupBy(rows, (r) => `${r.model}\u0000${r.setting}`)) {
    groups.push({ model: g[0]!.model, setting: g[0]!.setting, ...summarizeGroup(g, bootstrap) });
  }
  const bySource: GroupSummary[] = [];
  for (const [, g] of groupBy(rows, (r) => `${r.source}\u0000${r.model}\u0000${r.setting}`)) {
    bySource.push({ source: g[0]!.source, model: g[0]!.model, setting: g[0]!.setting, ...summarizeGroup(g, bootstrap) });
  }
  const paired: PairedSummary[] = [];
  for (const [model, g] of groupBy(rows, (r) => r.model)) {
    const inter = g.filter((r) => r.setting === 'interactive');
    const inCtx = g.filter((r) => r.setting === 'in-context');
    if (inter.length === 0 || inCtx.length === 0) continue;
    for (const metric of ['score', 'failRate', 'codeMatch'] as const) {
      const side = (rs: EpisodeRow[]) =>
        rs.flatMap((r) => {
          const v = metricValue(r, metric);
          return v === null ? [] : [{ key: `${r.methodId}#${r.sample}`, value: v }];
        });
      paired.push({ model, metric, diff: pairedDifference(side(inter), side(inCtx), bootstrap) });
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

/** The headline table: rows of model x setting, best mean score first. */
export function headlineRows(s: RunSummary): { headers: string[]; rows: string[][] } {
  const headers = ['model', 'setting', 'n', ...METRICS.map((m) => METRIC_LABEL[m]), 'cost $'];
  const sorted = [...s.groups].sort(
    (a, b) => (b.metrics.score.mean ?? -1) - (a.metrics.score.mean ?? -1) || a.model.localeCompare(b.model) || a.setting.localeCompare(b.setting),
  );
  const rows = sorted.map((g) => [
    g.model,
    settingLabel(g),
    `${g.judged}/${g.episodes}`,
    ...METRICS.map((m) => fmtEstimate(g.metrics[m], isShare(m))),
    g.costUsd.toFixed(4),
  ]);
  return { headers, rows };
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
