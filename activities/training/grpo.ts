// AAC-GRPO bookkeeping and the critic (queue `pau`): the run's row, the epoch's methods, the critic's step
// rewards (one cached model call per rated step, stored on the assistant step: steps.critic_reward and
// critic_rationale), the epoch's figures and the validation benchmark's summary in the run's summary.
import { ApplicationFailure } from '@temporalio/common';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import type { ModelEndpoints } from '../llm/endpoints';
import { datasetMethods, methods } from '../../db/schema/datasets';
import { runs, steps } from '../../db/schema/runs';
import { acceptedReferenceDescriptions, goldOrReference } from '../../platform/dataset/referenceDescriptions';
import { callingWorkflowId } from '../common/workflowContext';
import { type FinishRunInput, finishRunRow } from './checkpoints';
import { loadSteps } from '../episode/steps';
import { signatureFromCode } from '../episode/lifecycle';
import { activityChatDeps } from '../llm/activity';
import { entryPointOf } from '../../domain/dataset/entryPoint';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import type { CriticFormat } from '../../domain/training/criticPrompt';
import { rateCriticStep } from './criticRating';
import { execCriticRatings } from './execCritic';
import { execRationale, isExecCritic } from '../../domain/training/execCritic';
import {
  type GrpoConfig,
  type GrpoEpochFigures,
  type GrpoEvalFigures,
  criticUnparsableFigures,
  criticUnratedFigures,
  grpoConfigProblems,
  meanOf,
  sampleStratified,
} from '../../domain/training/grpo';
import { callsBefore, explorationSteps, isRated } from '../../domain/training/grpoRollouts';
import { type GrpoEvalStacks, grpoEvalFigures } from '../../domain/training/grpoEval';
import { mixedStacksRefusal, servingStackOf } from '../../domain/llm/servingStack';
import { groupRollouts } from '../../domain/training/rolloutOutcome';
import { loadRolloutRows } from '../../db/queries/rolloutRows';

export interface CriticResult {
  episodeId: string;
  /** One per assistant step, in order: the reward in [0, 1], or null (not rated, unparsable or unrated). */
  rewards: (number | null)[];
  rated: number;
  unparsable: number;
  /**
   * Steps the critic was asked to rate and could not, for a recorded reason (the execution critic: the
   * method's code fails on import, no alternative could be generated, ...), and that reason. Absent: none
   * (a model critic, or results recorded before).
   */
  unrated?: number;
  unratedReason?: string;
}

/** What the critic is shown of a method besides the steps: its signature and gold (or accepted reference) description. */
export async function criticMethodContext(d: Db, methodId: string) {
  const [m] = await d.select().from(methods).where(eq(methods.id, methodId)).limit(1);
  if (!m) throw ApplicationFailure.nonRetryable(`method ${methodId} is not in the methods table`, FAILURE_TYPES.methodNotFound);
  const gold = goldOrReference({ id: m.id, goldDescription: m.goldDescription }, await acceptedReferenceDescriptions(d, [m.id]));
  const entry = entryPointOf(m);
  const signature = m.signature ?? signatureFromCode(m.code, entry) ?? `def ${entry}(...)`;
  return { m, gold, entry, signature };
}

/**
 * The execution critic's rewards of one rollout (domain/training/execCritic.ts): the rated steps' ratings
 * from the sandbox (or its cache), written onto the assistant steps like a model critic's; an unrated step
 * gets a null reward and its reason as the rationale.
 */
async function execCriticRollout(db: () => Db, input: { episodeId: string; methodId: string }): Promise<CriticResult> {
  const d = db();
  const [m] = await d
    .select({ id: methods.id, entryPoint: methods.entryPoint, signature: methods.signature })
    .from(methods)
    .where(eq(methods.id, input.methodId))
    .limit(1);
  if (!m) throw ApplicationFailure.nonRetryable(`method ${input.methodId} is not in the methods table`, FAILURE_TYPES.methodNotFound);
  const ex = explorationSteps(await loadSteps(d, input.episodeId), entryPointOf(m));
  const ratings = await execCriticRatings({ db }, { methodId: m.id, steps: ex.map((s) => s.ran) });
  const rewards: (number | null)[] = [];
  let rated = 0;
  let unrated = 0;
  let unratedReason: string | undefined;
  for (const [i, s] of ex.entries()) {
    const r = ratings[i]!;
    if (!isRated(s)) {
      rewards.push(null);
      continue;
    }
    rated++;
    if (r.reward === null) {
      unrated++;
      unratedReason ??= r.unrated;
    }
    rewards.push(r.reward);
    await d
      .update(steps)
      .set({ criticReward: r.reward, criticRationale: execRationale(r).slice(0, 4000) })
      .where(and(eq(steps.episodeId, input.episodeId), eq(steps.idx, s.idx)));
  }
  return { episodeId: input.episodeId, rewards, rated, unparsable: 0, ...(unrated > 0 ? { unrated, ...(unratedReason ? { unratedReason } : {}) } : {}) };
}

export function createGrpoActivities(db: () => Db, endpoints: ModelEndpoints) {
  return {
    /** The run's row (kind grpo), so `runs list` shows it; a rerun with the same id keeps its summary. */
    async startGrpoRun(input: { runId: string; config: GrpoConfig }): Promise<void> {
      const problems = grpoConfigProblems(input.config);
      if (problems.length > 0) throw ApplicationFailure.nonRetryable(`run ${input.runId}: ${problems.join('; ')}`, FAILURE_TYPES.badRunConfig);
      const now = new Date();
      await db()
        .insert(runs)
        .values({ id: input.runId, kind: 'grpo', status: 'running', config: input.config, workflowId: callingWorkflowId(), startedAt: now })
        .onConflictDoUpdate({ target: runs.id, set: { status: 'running', error: null, workflowId: callingWorkflowId(), updatedAt: now } });
    },

    /**
     * Epoch e's methods: training methods that have a gold (or accepted reference) description, which the
     * critic needs; seeded and stratified by source. The on-policy critic card samples its methods here too (epoch 0).
     */
    async sampleGrpoMethods(input: {
      config: Pick<GrpoConfig, 'dataset' | 'split' | 'methodIds' | 'methodsPerEpoch' | 'seed'>;
      epoch: number;
    }): Promise<string[]> {
      const c = input.config;
      const d = db();
      const ids = c.methodIds?.length
        ? c.methodIds
        : (
            await d
              .select({ id: datasetMethods.methodId })
              .from(datasetMethods)
              .where(and(eq(datasetMethods.datasetName, c.dataset), eq(datasetMethods.split, c.split as 'train')))
          ).map((r) => r.id);
      if (ids.length === 0) throw ApplicationFailure.nonRetryable(`dataset ${c.dataset} has no methods in split ${c.split}`, FAILURE_TYPES.emptySplit);
      const rows = await d.select({ id: methods.id, source: methods.source, gold: methods.goldDescription }).from(methods).where(inArray(methods.id, ids));
      const refs = await acceptedReferenceDescriptions(
        d,
        rows.filter((r) => !r.gold).map((r) => r.id),
      );
      const usable = rows.filter((r) => goldOrReference({ id: r.id, goldDescription: r.gold }, refs));
      if (usable.length === 0) {
        throw ApplicationFailure.nonRetryable(
          `no method of ${c.dataset}/${c.split} has a gold or reference description for the critic`,
          FAILURE_TYPES.emptySplit,
        );
      }
      if (c.methodIds?.length) return c.methodIds.filter((id) => usable.some((u) => u.id === id)).slice(0, c.methodsPerEpoch);
      return sampleStratified(usable, c.methodsPerEpoch, c.seed, input.epoch);
    },

    /**
     * The critic's reward of every rated step of one rollout: the frozen critic model sees the gold
     * description, the calls so far and the new step's calls with what they returned. Each call is an
     * ordinary cached model call (a retry or a rerun pays nothing twice); rewards and rationales are written
     * onto the assistant steps (idempotent).
     */
    async criticRollout(input: { episodeId: string; methodId: string; critic: string; format?: CriticFormat }): Promise<CriticResult> {
      if (isExecCritic(input.critic)) return execCriticRollout(db, input);
      const d = db();
      const { m, gold, entry, signature } = await criticMethodContext(d, input.methodId);
      const rows = await loadSteps(d, input.episodeId);
      const ex = explorationSteps(rows, entry);
      const deps = activityChatDeps(db, endpoints);
      const rewards: (number | null)[] = [];
      let rated = 0;
      let unparsable = 0;
      for (let i = 0; i < ex.length; i++) {
        const s = ex[i]!;
        if (!isRated(s) || !gold) {
          rewards.push(null);
          continue;
        }
        const format = input.format ?? 'rubric';
        const { reward, text } = await rateCriticStep(deps, {
          model: input.critic,
          methodId: m.id,
          callKey: `${input.episodeId}#critic#${s.idx}`,
          input: { signature, goldDescription: gold.text, before: callsBefore(ex, i), step: s.calls },
          format,
        });
        rated++;
        if (reward === null) unparsable++;
        rewards.push(reward);
        await d
          .update(steps)
          .set({ criticReward: reward, criticRationale: text.slice(0, 4000) })
          .where(and(eq(steps.episodeId, input.episodeId), eq(steps.idx, s.idx)));
      }
      return { episodeId: input.episodeId, rewards, rated, unparsable };
    },

    /**
     * The epoch's rollout figures: outcome rewards per group (a policy failure at the minimum, an unjudged
     * rollout null: domain/training/rolloutOutcome.ts), judge scores, code match, critic means, and the counts
     * of policy failures, unjudged rollouts and skipped groups.
     */
    async summarizeGrpoRollouts(input: {
      runId: string;
      config: GrpoConfig;
      episodeIds: string[];
      critic: CriticResult[];
    }): Promise<
      Pick<
        GrpoEpochFigures,
        | 'rollouts'
        | 'failedRollouts'
        | 'outcomes'
        | 'meanReward'
        | 'meanScore'
        | 'meanCodeMatch'
        | 'meanCodeMatchUnobserved'
        | 'meanCriticReward'
        | 'ratedSteps'
        | 'criticUnparsable'
        | 'criticUnparsableShare'
        | 'criticUnrated'
        | 'groups'
      >
    > {
      const rows = await loadRolloutRows(db(), input.runId, input.config.judgeModel, input.episodeIds);
      const grouped = groupRollouts(rows, input.config.codeMatchWeight);
      const critic = new Map(input.critic.map((c) => [c.episodeId, c]));
      const byMethod = new Map<string, typeof grouped.rollouts>();
      for (const r of grouped.rollouts) byMethod.set(r.row.methodId, [...(byMethod.get(r.row.methodId) ?? []), r]);
      const allSteps = input.critic.flatMap((c) => c.rewards);
      return {
        rollouts: rows.length,
        failedRollouts: rows.filter((r) => r.status !== 'completed').length,
        outcomes: grouped.figures,
        meanReward: meanOf(grouped.rollouts.map((r) => r.reward)),
        meanScore: meanOf(rows.map((r) => r.score)),
        meanCodeMatch: meanOf(rows.map((r) => r.codeMatch)),
        meanCodeMatchUnobserved: meanOf(rows.map((r) => r.codeMatchUnobserved)),
        meanCriticReward: meanOf(allSteps),
        ratedSteps: allSteps.filter((x) => x !== null).length,
        ...criticUnparsableFigures(input.critic),
        ...criticUnratedFigures(input.critic),
        groups: [...byMethod].map(([methodId, rs]) => {
          const sorted = [...rs].sort((a, b) => a.row.sample - b.row.sample);
          return {
            methodId,
            rewards: sorted.map((r) => r.reward),
            criticMeans: sorted.map((r) => meanOf(critic.get(r.row.episodeId)?.rewards ?? [])),
          };
        }),
      };
    },

    /**
     * The validation benchmark's figures: the checkpoint beside its base, every ended episode counted, with
     * intervals over methods and the checkpoint paired against the base (domain/training/grpoEval.ts).
     */
    async summarizeGrpoEval(input: { evalRunId: string; checkpointModel: string; base: string; judgeModel: string }): Promise<GrpoEvalFigures> {
      const rows = await loadRolloutRows(db(), input.evalRunId, input.judgeModel, null);
      return grpoEvalFigures(input.evalRunId, rows, input.checkpointModel, input.base);
    },

    /**
     * The stack each arm of a paired evaluation is served by, as this host resolves them; refused
     * (non-retryable) when they differ, unless the run allows it (`--allow-mixed-stacks`).
     */
    async servingStacks(input: { checkpointModel: string; base: string; allowMixed: boolean }): Promise<GrpoEvalStacks> {
      const arms = [
        { arm: 'checkpoint', model: input.checkpointModel },
        { arm: 'base', model: input.base },
      ];
      const stacks = await Promise.all(arms.map(async (a) => ({ ...a, stack: servingStackOf(await endpoints.resolve(a.model, db())) })));
      const refusal = mixedStacksRefusal(stacks, input.allowMixed);
      if (refusal) throw ApplicationFailure.nonRetryable(refusal, FAILURE_TYPES.mixedServingStacks);
      return {
        checkpoint: stacks[0]!.stack,
        base: stacks[1]!.stack,
        ...(input.allowMixed && stacks[0]!.stack !== stacks[1]!.stack ? { mixedAllowed: true } : {}),
      };
    },

    /** Epoch figures into the run's summary (`epochs[e]`, rewritten on a retry). */
    async recordGrpoEpoch(input: { runId: string; figures: GrpoEpochFigures }): Promise<void> {
      const path = `{epochs,${input.figures.epoch}}`;
      await db()
        .update(runs)
        .set({
          summary: sql`jsonb_set(coalesce(${runs.summary}, '{}'::jsonb) || jsonb_build_object('epochs', coalesce(${runs.summary}->'epochs', '[]'::jsonb)), ${path}::text[], ${JSON.stringify(input.figures)}::jsonb, true)`,
          updatedAt: new Date(),
        })
        .where(eq(runs.id, input.runId));
    },

    async finishGrpoRun(input: FinishRunInput): Promise<void> {
      await finishRunRow(db(), input);
    },
  };
}
