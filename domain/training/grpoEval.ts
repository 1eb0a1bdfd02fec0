// The figures of a GRPO evaluation (issue 23, "evaluation that counts"): each epoch's validation is an ordinary
// benchmark run of the checkpoint beside its base, at the benchmark's budgets, and is summarised the way the
// benchmark report summarises any run: every ended episode counted (a failed, unjudged or unparsable one
// scores 1 and code match 0: domain/report/summarize.ts `metricValue`, counting `all`), 95 % intervals from
// resampling methods, and the checkpoint paired against the base by method. Runs of other reward modes are
// paired the same way (checkpoint of one run minus the checkpoint of another, same validation methods). Pure.
import { fmtEstimate, fmtPaired, type Metric, metricEstimate, pairedMetric, powerSuffix } from '../report/summarize';
import type { EpisodeRow } from '../report/summarize';
import type { Estimate, PairedEstimate } from '../report/stats';
import { recordOf } from '../common/recordOf';
import type { PolicyMovedGate } from '../report/policyMoved';

/** The metrics a GRPO evaluation pairs: the judge's score, the failure rate, code match on unseen inputs. */
export const GRPO_EVAL_METRICS = ['score', 'failRate', 'codeMatchUnobserved'] as const satisfies readonly Metric[];
export type GrpoEvalMetric = (typeof GRPO_EVAL_METRICS)[number];

/** An evaluation episode: the report's row plus whether it ended with a description. */
export type GrpoEvalRow = EpisodeRow & { hasDescription: boolean };

export interface GrpoEvalModelFigures {
  model: string;
  episodes: number;
  /** Every ended episode counted (failures as 1) since issue 23; judged episodes only in runs recorded before. */
  meanScore: number | null;
  meanCodeMatch: number | null;
  meanCalls: number | null;
  failed: number;
  /** Absent in runs recorded before issue 23. */
  unjudged?: number;
  estimates?: Record<GrpoEvalMetric, Estimate>;
  /** Share of ended episodes that ended with a final description. */
  described?: number | null;
  /** Repeated calls over all calls of the judged episodes (the judge's diagnostics). */
  repeatedCallRate?: number | null;
}

/** The serving stack of each arm (domain/llm/servingStack.ts); `mixedAllowed` when they differ by --allow-mixed-stacks. */
export interface GrpoEvalStacks {
  checkpoint: string;
  base: string;
  mixedAllowed?: boolean;
}

export interface GrpoEvalFigures {
  runId: string;
  /** Which stack served each arm (absent in runs recorded before the check). */
  stacks?: GrpoEvalStacks;
  checkpoint: GrpoEvalModelFigures;
  base: GrpoEvalModelFigures;
  /** Checkpoint minus base, paired by method (absent in runs recorded before issue 23). */
  paired?: Record<GrpoEvalMetric, PairedEstimate>;
  /** `all`: means count every ended episode (absent: judged only, the old summary). */
  counting?: 'all';
  /** Did the checkpoint move from its base (domain/report/policyMoved.ts)? Absent in runs recorded before the gate. */
  gate?: PolicyMovedGate;
}

const ended = (r: Pick<EpisodeRow, 'status'>) => r.status !== 'pending' && r.status !== 'running';

export function grpoEvalModelFigures(model: string, rows: readonly GrpoEvalRow[]): GrpoEvalModelFigures {
  const rs = rows.filter((r) => r.model === model);
  const done = rs.filter(ended);
  const estimates = recordOf(GRPO_EVAL_METRICS, (m) => metricEstimate(rs, m, 'all'));
  const judged = rs.filter((r) => r.judged);
  const calls = judged.reduce((a, r) => a + (r.diagnostics?.calls ?? 0), 0);
  const repeated = judged.reduce((a, r) => a + (r.diagnostics?.repeatedCalls ?? 0), 0);
  return {
    model,
    episodes: rs.length,
    meanScore: estimates.score.mean,
    meanCodeMatch: metricEstimate(rs, 'codeMatch', 'all').mean,
    meanCalls: done.length === 0 ? null : done.reduce((a, r) => a + r.callsMade, 0) / done.length,
    failed: rs.filter((r) => r.status === 'failed' || r.status === 'cancelled').length,
    unjudged: done.filter((r) => r.status === 'completed' && !r.judged).length,
    estimates,
    described: done.length === 0 ? null : done.filter((r) => r.hasDescription).length / done.length,
    repeatedCallRate: calls === 0 ? null : repeated / calls,
  };
}

/** Rows a minus rows b on every GRPO evaluation metric, paired by method, every ended episode counted. */
export function grpoEvalPaired(a: readonly EpisodeRow[], b: readonly EpisodeRow[]): Record<GrpoEvalMetric, PairedEstimate> {
  return recordOf(GRPO_EVAL_METRICS, (m) => pairedMetric(a, b, m, 'all'));
}

/** An evaluation run's figures: the checkpoint and the base, and the checkpoint paired against the base. */
export function grpoEvalFigures(runId: string, rows: readonly GrpoEvalRow[], checkpointModel: string, base: string): GrpoEvalFigures {
  return {
    runId,
    checkpoint: grpoEvalModelFigures(checkpointModel, rows),
    base: grpoEvalModelFigures(base, rows),
    paired: grpoEvalPaired(
      rows.filter((r) => r.model === checkpointModel),
      rows.filter((r) => r.model === base),
    ),
    counting: 'all',
  };
}

/** What served each arm: one stack said once, or both (different, allowed by the run); undefined before the check. */
export function servedByText(stacks: GrpoEvalStacks | undefined): string | undefined {
  if (!stacks) return undefined;
  if (stacks.checkpoint === stacks.base) return stacks.checkpoint;
  return `${stacks.checkpoint} vs ${stacks.base}${stacks.mixedAllowed ? ' (DIFFERENT STACKS, --allow-mixed-stacks)' : ''}`;
}

const fmtE = (e: Estimate | undefined, percent = false) => (e ? fmtEstimate(e, percent) : '-');

/**
 * One line of an epoch's evaluation for the CLI: score and unseen code match of both sides, and the paired
 * difference with its power; each only where `shown` (the judge card's rule, domain/report/judgeCardView.ts) allows.
 */
export function grpoEvalLine(ev: GrpoEvalFigures, shown: { scores: boolean; codeMatch: boolean } = { scores: true, codeMatch: true }): string {
  const c = ev.checkpoint;
  const b = ev.base;
  if (!ev.paired || !c.estimates || !b.estimates) {
    return `val ${ev.runId}: score ${shown.scores ? `${c.meanScore?.toFixed(3) ?? '-'} (base ${b.meanScore?.toFixed(3) ?? '-'}; judged episodes only)` : 'withheld'}`;
  }
  const pct = (x: number | null | undefined) => (x === null || x === undefined ? '-' : `${Math.round(100 * x)}%`);
  const score = shown.scores
    ? `score ${fmtE(c.estimates.score)} vs base ${fmtE(b.estimates.score)}, ckpt - base ${fmtPaired(ev.paired.score)}${powerSuffix(ev.paired.score, 'score')}`
    : 'score withheld';
  const codeMatch = shown.codeMatch
    ? `code match (unseen) ${fmtE(c.estimates.codeMatchUnobserved, true)} vs ${fmtE(b.estimates.codeMatchUnobserved, true)}, ${fmtPaired(ev.paired.codeMatchUnobserved, true)}${powerSuffix(ev.paired.codeMatchUnobserved, 'codeMatchUnobserved')}`
    : 'code match withheld';
  return (
    `val ${ev.runId} (${c.episodes} + ${b.episodes} episodes, all counted): ${score}; ${codeMatch}; described ${pct(c.described)} vs ${pct(b.described)}; ` +
    `repeated calls ${pct(c.repeatedCallRate)} vs ${pct(b.repeatedCallRate)}; calls/episode ${c.meanCalls?.toFixed(1) ?? '-'} vs ${b.meanCalls?.toFixed(1) ?? '-'}` +
    (ev.stacks ? `; served by ${servedByText(ev.stacks)}` : '')
  );
}
