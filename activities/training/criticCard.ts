// Critic-card activities (queue `pau`): plan a card (its key and its recorded episodes, picked
// deterministically), rate one episode's steps with the critic exactly as a GRPO rollout's are rated (the same
// prompt, params and method context as criticRollout) and record its row, and finish the card. Every critic
// call goes through the llm_calls cache with a deterministic key, so a retried or rerun card pays nothing twice.
import { ApplicationFailure } from '@temporalio/common';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { parseRunConfig } from '../../db/runDocuments';
import type { ModelEndpoints } from '../llm/endpoints';
import { datasetMethods, methods } from '../../db/schema/datasets';
import { criticCards } from '../../db/schema/criticCards';
import { episodes, runs } from '../../db/schema/runs';
import { acceptedReferenceDescriptions, goldOrReference } from '../../platform/dataset/referenceDescriptions';
import { entryPointOf } from '../../domain/dataset/entryPoint';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import { DEFAULT_CRITIC_FORMAT, type CriticFormat } from '../../domain/training/criticPrompt';
import { criticFormat } from '../../domain/training/criticFormats';
import { rateCriticStep } from './criticRating';
import {
  buildCriticCard,
  classifyCalls,
  constructedRepeat,
  DEFAULT_CRITIC_THRESHOLDS,
  pickCriticEpisodes,
  stepClass,
  type CriticCandidate,
  type CriticCardEpisode,
  type CriticCardInput,
  type CriticCardKey,
  type CriticCardPick,
  type CriticCardPlan,
  type CriticCardStep,
  type StepClass,
} from '../../domain/training/criticCard';
import { callsBefore, explorationSteps, isRated, type ExplorationStep } from '../../domain/training/grpoRollouts';
import { callingWorkflowId, currentActivity } from '../common/workflowContext';
import { loadSteps } from '../episode/steps';
import { activityChatDeps } from '../llm/activity';
import { requestHash } from '../../domain/common/hash';
import { criticMethodContext } from './grpo';

/** The card's identity: a hash of (critic, the params sent, prompt version, dataset split, run). */
export function criticCardKeyOf(key: CriticCardKey): string {
  return requestHash(key).slice(0, 24);
}

/** The rated steps of an episode with their classes (in order); unclassed steps are left out. */
function classedSteps(ex: readonly ExplorationStep[]): { i: number; step: ExplorationStep; class: StepClass }[] {
  return ex.flatMap((s, i) => {
    if (!isRated(s)) return [];
    const k = stepClass(classifyCalls(callsBefore(ex, i), s.calls));
    return k ? [{ i, step: s, class: k }] : [];
  });
}

/** Candidate episodes examined per episode asked for: enough for the round-robin, bounded for a large database. */
const CANDIDATES_PER_EPISODE = 10;

export function createCriticCardActivities(db: () => Db, endpoints: ModelEndpoints) {
  return {
    /** The card's key and episodes; creates (or, with force, resets) its row. */
    async planCriticCard(input: CriticCardInput): Promise<CriticCardPlan> {
      const d = db();
      let { dataset, split } = input;
      if (input.runId) {
        const [r] = await d.select({ kind: runs.kind, config: runs.config }).from(runs).where(eq(runs.id, input.runId));
        if (!r) throw ApplicationFailure.nonRetryable(`no run ${input.runId}`, FAILURE_TYPES.runNotFound);
        if (r.kind !== 'benchmark')
          throw ApplicationFailure.nonRetryable(`run ${input.runId} is a ${r.kind} run, not a benchmark`, FAILURE_TYPES.runNotBenchmark);
        const c = parseRunConfig('benchmark', r.config, input.runId);
        dataset = c.dataset ?? dataset;
        split = c.split ?? split;
      }
      const format = input.format ?? DEFAULT_CRITIC_FORMAT;
      const skip = input.skip ?? 0;
      const key: CriticCardKey = {
        criticModel: input.criticModel,
        criticParams: { ...criticFormat(format).params },
        promptVersion: criticFormat(format).promptVersion,
        dataset,
        split,
        runId: input.runId ?? null,
      };
      const cardKey = criticCardKeyOf(key);
      // Completed interactive episodes of benchmark runs on the split (or of the one run), in (method, episode)
      // order: runs whose config names the dataset split, on methods of that split (a method may be in several datasets).
      const scope = input.runId
        ? eq(episodes.runId, input.runId)
        : and(
            sql`${runs.config}->>'dataset' = ${dataset} and ${runs.config}->>'split' = ${split}`,
            inArray(
              episodes.methodId,
              d
                .select({ id: datasetMethods.methodId })
                .from(datasetMethods)
                .where(and(eq(datasetMethods.datasetName, dataset), eq(datasetMethods.split, split as 'validation'))),
            ),
          );
      const eps = await d
        .select({ id: episodes.id, methodId: episodes.methodId, runId: episodes.runId })
        .from(episodes)
        .innerJoin(runs, eq(runs.id, episodes.runId))
        .where(and(scope, eq(runs.kind, 'benchmark'), eq(episodes.setting, 'interactive'), eq(episodes.status, 'completed')))
        .orderBy(asc(episodes.methodId), asc(episodes.id))
        .limit(Math.max(200, CANDIDATES_PER_EPISODE * (skip + input.episodes)));
      const methodIds = [...new Set(eps.map((e) => e.methodId))];
      const rows = methodIds.length === 0 ? [] : await d.select().from(methods).where(inArray(methods.id, methodIds));
      const refs = await acceptedReferenceDescriptions(
        d,
        rows.filter((m) => !m.goldDescription?.trim()).map((m) => m.id),
      );
      const byId = new Map(rows.map((m) => [m.id, m]));
      const candidates: CriticCandidate[] = [];
      for (const e of eps) {
        const m = byId.get(e.methodId);
        if (!m || !goldOrReference(m, refs)) continue; // the critic is shown the gold description
        const ex = explorationSteps(await loadSteps(d, e.id), entryPointOf(m));
        candidates.push({ episodeId: e.id, methodId: e.methodId, runId: e.runId, classes: classedSteps(ex).map((s) => s.class) });
      }
      const picks = pickCriticEpisodes(candidates, skip + input.episodes).slice(skip);
      if (picks.length === 0)
        throw ApplicationFailure.nonRetryable(
          `${input.runId ? `run ${input.runId}` : `${dataset}/${split}`} has no completed interactive benchmark episode with a new step on a method with a gold or accepted reference description${skip > 0 ? ` after the first ${skip}` : ''}; a critic card needs at least 1 (run a benchmark on the split first)`,
          FAILURE_TYPES.criticCardNoEpisodes,
        );
      const values = { cardKey, ...key, status: 'running' as const, workflowId: callingWorkflowId(), updatedAt: new Date() };
      const [existing] = await d.select({ episodes: criticCards.episodes }).from(criticCards).where(eq(criticCards.cardKey, cardKey));
      const keep = existing && !input.force;
      await d
        .insert(criticCards)
        .values({ ...values, episodes: {} })
        .onConflictDoUpdate({
          target: criticCards.cardKey,
          set: { ...values, ...(keep ? {} : { episodes: {}, card: null, qualified: null, finishedAt: null }) },
        });
      const ids = picks.map((p) => p.episodeId);
      const recorded = keep ? Object.keys(existing.episodes ?? {}).filter((id) => ids.includes(id)) : [];
      return { cardKey, dataset, split, picks, recorded, format };
    },

    /**
     * The critic's reward of every classed step of one episode (and of the appended repeat when the pick asks
     * for one), with the prompt criticRollout sends; the episode's row stored in the card.
     */
    async rateCriticCardEpisode(input: { cardKey: string; criticModel: string; pick: CriticCardPick; format?: CriticFormat }): Promise<CriticCardEpisode> {
      const d = db();
      const { pick } = input;
      const { m, gold, entry, signature } = await criticMethodContext(d, pick.methodId);
      if (!gold) throw ApplicationFailure.nonRetryable(`method ${m.id} has no gold or accepted reference description`, FAILURE_TYPES.methodUnusable);
      const ex = explorationSteps(await loadSteps(d, pick.episodeId), entry);
      const deps = activityChatDeps(db, endpoints);
      const format = input.format ?? 'rubric';
      const rate = async (callKey: string, before: ExplorationStep['calls'], step: ExplorationStep['calls']) => {
        currentActivity()?.heartbeat(callKey);
        const r = await rateCriticStep(deps, {
          model: input.criticModel,
          methodId: m.id,
          callKey,
          input: { signature, goldDescription: gold.text, before, step },
          format,
        });
        return r.reward;
      };
      const base = `critic-card/${input.criticModel}/${pick.episodeId}`;
      const out: CriticCardStep[] = [];
      for (const s of classedSteps(ex))
        out.push({ idx: s.step.idx, class: s.class, reward: await rate(`${base}#${s.step.idx}`, callsBefore(ex, s.i), s.step.calls) });
      // The appended repeat: every call the episode made is the trajectory; the step is its first executed call again.
      const all = callsBefore(ex, ex.length);
      const repeat = pick.construct ? constructedRepeat(all) : null;
      if (repeat) {
        const idx = (ex.at(-1)?.idx ?? 0) + 1;
        out.push({ idx, class: 'repeated', reward: await rate(`${base}#repeat`, all, [repeat]), constructed: true });
      }
      const row: CriticCardEpisode = { episodeId: pick.episodeId, methodId: pick.methodId, runId: pick.runId, constructed: repeat !== null, steps: out };
      await d
        .update(criticCards)
        .set({ episodes: sql`jsonb_set(${criticCards.episodes}, array[${pick.episodeId}::text], ${JSON.stringify(row)}::jsonb)`, updatedAt: new Date() })
        .where(eq(criticCards.cardKey, input.cardKey));
      return row;
    },

    /** The card from its stored rows: measures, checks, qualification; stored and returned without its episodes. */
    async finishCriticCard(input: { cardKey: string; episodeIds: string[]; failed: number; thresholds?: CriticCardInput['thresholds'] }) {
      const d = db();
      const [r] = await d.select().from(criticCards).where(eq(criticCards.cardKey, input.cardKey));
      if (!r) throw ApplicationFailure.nonRetryable(`no critic card ${input.cardKey}`, FAILURE_TYPES.criticCardNoEpisodes);
      const stored = r.episodes as Record<string, CriticCardEpisode>;
      const rows = input.episodeIds.flatMap((id) => (stored[id] ? [stored[id]] : []));
      const card = buildCriticCard(
        {
          cardKey: r.cardKey,
          criticModel: r.criticModel,
          criticParams: r.criticParams,
          promptVersion: r.promptVersion,
          dataset: r.dataset,
          split: r.split,
          runId: r.runId,
        },
        rows,
        { thresholds: { ...DEFAULT_CRITIC_THRESHOLDS, ...(input.thresholds ?? {}) }, computedAt: new Date().toISOString(), workflowId: r.workflowId },
      );
      await d
        .update(criticCards)
        .set({ status: 'completed', card, qualified: card.qualified, finishedAt: new Date(), updatedAt: new Date() })
        .where(eq(criticCards.cardKey, input.cardKey));
      const { episodes: _episodes, ...summary } = card;
      return { ...summary, failedEpisodes: input.failed };
    },
  };
}

export type CriticCardActivities = ReturnType<typeof createCriticCardActivities>;
