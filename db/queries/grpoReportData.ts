// What the GRPO report and progress line read from Postgres: the run's config and per-epoch figures, and the
// best and worst groups' rollouts with their step rewards.
import type { PolicyMovedGate } from '../../domain/report/policyMoved';
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Db } from '../client';
import { methods } from '../schema/datasets';
import { episodes, runs, steps } from '../schema/runs';
import { loadRolloutRows } from './rolloutRows';
import { entryPointOf } from '../../domain/dataset/entryPoint';
import type { GrpoConfig, GrpoEpochFigures } from '../../domain/training/grpo';
import { criticCardStatus } from './criticCards';
import { runJudgeCard } from './judgeCards';
import { bestAndWorstGroups, type GrpoGroupExample, type GrpoReportInput, type GrpoRunComparison } from '../../domain/trainingReport/grpoReport';
import { grpoEvalPaired } from '../../domain/training/grpoEval';
import { explorationSteps } from '../../domain/training/grpoRollouts';
import { rolloutVerdict } from '../../domain/training/rolloutOutcome';
import { parseRunConfig, parseRunSummary } from '../runDocuments';

export interface GrpoRunState {
  runId: string;
  status: string;
  config: GrpoConfig;
  epochs: GrpoEpochFigures[];
  startedAt: Date | null;
  finishedAt: Date | null;
  error: string | null;
}

export async function loadGrpoRun(db: Db, runId: string): Promise<GrpoRunState | undefined> {
  const [r] = await db.select().from(runs).where(eq(runs.id, runId)).limit(1);
  if (!r || r.kind !== 'grpo') return undefined;
  const summary = parseRunSummary('grpo', r.summary, runId);
  const epochs = (summary?.epochs ?? []).filter((e): e is GrpoEpochFigures => !!e);
  return {
    runId,
    status: r.status,
    config: parseRunConfig('grpo', r.config, runId),
    epochs,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
    error: r.error,
  };
}

/** Rollout episodes of the run that finished (any epoch), for the progress line. */
export async function countRollouts(db: Db, runId: string): Promise<{ done: number; running: number }> {
  const rows = await db.select({ status: episodes.status }).from(episodes).where(eq(episodes.runId, runId));
  return { done: rows.filter((r) => r.status === 'completed' || r.status === 'failed').length, running: rows.filter((r) => r.status === 'running').length };
}

async function groupExample(db: Db, run: GrpoRunState, g: ReturnType<typeof bestAndWorstGroups>[number]): Promise<GrpoGroupExample> {
  const e = run.epochs.find((x) => x.epoch === g.epoch)!;
  const rows = (await loadRolloutRows(db, run.runId, run.config.judgeModel, null)).filter(
    (r) => r.methodId === g.methodId && r.model === e.policyModel && Math.floor(r.sample / 1000) === g.epoch,
  );
  const [m] = await db.select().from(methods).where(eq(methods.id, g.methodId)).limit(1);
  const entry = m ? entryPointOf(m) : 'f';
  const ids = rows.map((r) => r.episodeId);
  const stepRows = ids.length ? await db.select().from(steps).where(inArray(steps.episodeId, ids)).orderBy(asc(steps.episodeId), asc(steps.idx)) : [];
  const eps = ids.length
    ? await db
        .select({ id: episodes.id, d: episodes.finalDescription })
        .from(episodes)
        .where(and(inArray(episodes.id, ids)))
    : [];
  const rollouts = rows
    .sort((a, b) => a.sample - b.sample)
    .map((r) => {
      const mine = stepRows.filter((s) => s.episodeId === r.episodeId);
      const byIdx = new Map(mine.map((s) => [s.idx, s]));
      return {
        episodeId: r.episodeId,
        sample: r.sample,
        reward: ((v) => (v.kind === 'unjudged' ? null : v.reward))(rolloutVerdict(r, run.config.codeMatchWeight)),
        score: r.score,
        codeMatchUnobserved: r.codeMatchUnobserved,
        finalDescription: eps.find((x) => x.id === r.episodeId)?.d ?? null,
        steps: explorationSteps(mine, entry).map((s) => {
          const row = byIdx.get(s.idx);
          const content = row?.agentMessage?.content ?? '';
          return {
            idx: s.idx,
            text: s.calls.length ? s.calls.map((c) => `${c.call} -> ${c.observation}`).join('\n') : content.slice(0, 300),
            criticReward: row?.criticReward ?? null,
            rationale: row?.criticRationale ?? null,
          };
        }),
      };
    });
  return { ...g, rollouts };
}

/**
 * This run's checkpoints against another run's, epoch by epoch where both were evaluated: each side's
 * checkpoint episodes from its evaluation benchmark, paired by method. Runs judged by another judge are
 * not compared (their scores are not on one scale): a note says so.
 */
async function compareRuns(db: Db, run: GrpoRunState, others: readonly string[]): Promise<{ comparisons: GrpoRunComparison[]; notes: string[] }> {
  const comparisons: GrpoRunComparison[] = [];
  const notes: string[] = [];
  const checkpointRows = async (r: GrpoRunState, e: GrpoEpochFigures) =>
    (await loadRolloutRows(db, e.eval!.runId, r.config.judgeModel, null)).filter((x) => x.model === e.eval!.checkpoint.model);
  for (const otherId of others) {
    const other = await loadGrpoRun(db, otherId);
    if (!other) {
      notes.push(`${otherId}: no GRPO run of that id`);
      continue;
    }
    if (other.config.judgeModel !== run.config.judgeModel) {
      notes.push(`${otherId}: judged by ${other.config.judgeModel}, this run by ${run.config.judgeModel}: not compared`);
      continue;
    }
    for (const e of run.epochs) {
      const o = other.epochs.find((x) => x.epoch === e.epoch);
      if (!e.eval || !o?.eval) continue;
      comparisons.push({
        otherRunId: otherId,
        otherReward: other.config.reward,
        epoch: e.epoch,
        evalRunIds: [e.eval.runId, o.eval.runId],
        paired: grpoEvalPaired(await checkpointRows(run, e), await checkpointRows(other, o)),
        ...(e.eval.gate || o.eval.gate ? { gates: [e.eval.gate ?? null, o.eval.gate ?? null] as [PolicyMovedGate | null, PolicyMovedGate | null] } : {}),
      });
    }
  }
  return { comparisons, notes };
}

export async function loadGrpoReport(db: Db, runId: string, compare: readonly string[] = []): Promise<GrpoReportInput | undefined> {
  const run = await loadGrpoRun(db, runId);
  if (!run) return undefined;
  const examples: GrpoGroupExample[] = [];
  for (const g of bestAndWorstGroups(run.epochs)) examples.push(await groupExample(db, run, g));
  const { comparisons, notes } = await compareRuns(db, run, compare);
  const criticCard = await criticCardStatus(db, {
    criticModel: run.config.critic,
    dataset: run.config.dataset,
    format: run.config.criticFormat ?? 'rubric',
    policy: run.config.base,
  });
  // The validation runs are judged by the run's judge with its judge fields: its card decides what they show.
  const judgeCard = await runJudgeCard(db, { id: runId, kind: 'grpo', config: run.config }, run.config.judgeModel);
  return {
    runId,
    status: run.status,
    config: run.config,
    epochs: run.epochs,
    examples,
    generatedAt: new Date().toISOString(),
    ...(compare.length > 0 ? { comparisons, comparisonNotes: notes } : {}),
    criticCard,
    ...(judgeCard ? { judgeCard } : {}),
  };
}
