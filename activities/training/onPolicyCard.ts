// On-policy critic card activities (queue `pau`; domain/training/onPolicyCard.ts): start a card (the rollouts'
// run row, each critic's card row, what is recorded already), rate one rollout with one critic twice (its own
// privileged information and the swap partner's) and store the row, and finish (every critic's measures against
// the execution labels, stored and returned side by side). A model critic rates through the GRPO critic's one
// function (criticRating.ts), the execution critic through its cached ratings (execCritic.ts), the free rule
// from the transcript; every model call is cached, so a rerun pays nothing twice.
import { ApplicationFailure } from '@temporalio/common';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { loadRolloutRows } from '../../db/queries/rolloutRows';
import { parseRunConfig } from '../../db/runDocuments';
import { onPolicyCriticCards } from '../../db/schema/criticCards';
import { episodes, runs } from '../../db/schema/runs';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import { classifyCalls, freeRuleScore, stepClass } from '../../domain/training/criticCard';
import {
  criticLabelOf,
  DEFAULT_ON_POLICY_THRESHOLDS,
  type OnPolicyCardKey,
  type OnPolicyCritic,
  type OnPolicyCriticCard,
  type OnPolicyRolloutConfig,
  type OnPolicyRolloutRatings,
  type OnPolicyStepRating,
  type OnPolicyThresholds,
  onPolicyCardKey,
  rolloutCodeMatch,
  rolloutFacts,
  scoreOnPolicyCritics,
} from '../../domain/training/onPolicyCard';
import { callsBefore, explorationSteps, isRated } from '../../domain/training/grpoRollouts';
import { callingWorkflowId, currentActivity } from '../common/workflowContext';
import { loadSteps } from '../episode/steps';
import { activityChatDeps } from '../llm/activity';
import type { ModelEndpoints } from '../llm/endpoints';
import { requestHash } from '../../domain/common/hash';
import { rateCriticStep } from './criticRating';
import { execCriticRatings } from './execCritic';
import { criticMethodContext } from './grpo';

/** The card's identity: a hash of (critic, the params sent, its version, policy, dataset split, rollouts' run). */
export function onPolicyCardKeyOf(key: OnPolicyCardKey): string {
  return requestHash({ onPolicy: key }).slice(0, 24);
}

export interface OnPolicyCardPlan {
  /** Each critic's card key, in the order of the critics. */
  cardKeys: string[];
  /** The rollouts of the run that have ended (a rerun does not roll them out again). */
  ended: string[];
  /** Per card key, the rollouts it has rated already (a rerun rates only the rest). */
  recorded: Record<string, string[]>;
}

const ENDED = ['completed', 'failed'] as const;

export function createOnPolicyCardActivities(db: () => Db, endpoints: ModelEndpoints) {
  return {
    /** The rollouts' run row (kind critic-card) and every critic's card row; what is already recorded. */
    async startOnPolicyCard(input: { runId: string; config: OnPolicyRolloutConfig; critics: OnPolicyCritic[]; force?: boolean }): Promise<OnPolicyCardPlan> {
      const d = db();
      const [existing] = await d.select({ kind: runs.kind }).from(runs).where(eq(runs.id, input.runId));
      if (existing && existing.kind !== 'critic-card')
        throw ApplicationFailure.nonRetryable(`run ${input.runId} is a ${existing.kind} run, not a critic card's rollouts`, FAILURE_TYPES.runIdInUse);
      const now = new Date();
      await d
        .insert(runs)
        .values({ id: input.runId, kind: 'critic-card', status: 'running', config: input.config, workflowId: callingWorkflowId(), startedAt: now })
        .onConflictDoUpdate({ target: runs.id, set: { status: 'running', error: null, workflowId: callingWorkflowId(), updatedAt: now } });
      const ended = await d
        .select({ id: episodes.id })
        .from(episodes)
        .where(and(eq(episodes.runId, input.runId), inArray(episodes.status, [...ENDED])));
      const cardKeys: string[] = [];
      const recorded: Record<string, string[]> = {};
      for (const c of input.critics) {
        const key = onPolicyCardKey(c, input.runId, input.config);
        const cardKey = onPolicyCardKeyOf(key);
        cardKeys.push(cardKey);
        const [row] = await d.select({ rollouts: onPolicyCriticCards.rollouts }).from(onPolicyCriticCards).where(eq(onPolicyCriticCards.cardKey, cardKey));
        const keep = row && !input.force;
        const values = { cardKey, ...key, status: 'running' as const, workflowId: callingWorkflowId(), updatedAt: now };
        await d
          .insert(onPolicyCriticCards)
          .values({ ...values, rollouts: {} })
          .onConflictDoUpdate({
            target: onPolicyCriticCards.cardKey,
            set: { ...values, ...(keep ? {} : { rollouts: {}, card: null, qualified: null, finishedAt: null }) },
          });
        recorded[cardKey] = keep ? Object.keys(row.rollouts ?? {}) : [];
      }
      return { cardKeys, ended: ended.map((e) => e.id), recorded };
    },

    /**
     * One rollout rated by one critic: every step the GRPO critic rates (it made a call and did not submit),
     * with the critic's own privileged information and with the swap partner's; the row stored in the card.
     */
    async rateOnPolicyRollout(input: {
      cardKey: string;
      critic: OnPolicyCritic;
      episodeId: string;
      methodId: string;
      swapMethodId: string | null;
    }): Promise<{ steps: number; unrated: number }> {
      const started = Date.now();
      const d = db();
      const { m, gold, entry, signature } = await criticMethodContext(d, input.methodId);
      const ex = explorationSteps(await loadSteps(d, input.episodeId), entry);
      const rated = ex.flatMap((s, i) => (isRated(s) ? [i] : []));
      const c = input.critic;
      const steps: OnPolicyStepRating[] = [];
      if (c.kind === 'rule') {
        for (const i of rated) {
          const before = callsBefore(ex, i);
          const own = freeRuleScore(before, ex[i]!.calls) / 10;
          steps.push({ idx: ex[i]!.idx, own, swapped: own, class: stepClass(classifyCalls(before, ex[i]!.calls)) });
        }
      } else if (c.kind === 'exec') {
        // The privilege is the method's code: the swap rates the same calls against the partner's.
        const calls = ex.map((s) => s.ran);
        const own = await execCriticRatings({ db }, { methodId: m.id, steps: calls });
        const swapped = input.swapMethodId ? await execCriticRatings({ db }, { methodId: input.swapMethodId, steps: calls }) : null;
        for (const i of rated) {
          const r = own[i]!;
          steps.push({
            idx: ex[i]!.idx,
            own: r.reward,
            swapped: swapped?.[i]?.reward ?? null,
            ruledOut: r.reward === null ? null : r.ruledOut,
            ...(r.reward === null ? { unrated: r.unrated ?? 'no reason recorded' } : {}),
          });
        }
      } else {
        const deps = activityChatDeps(db, endpoints);
        const swapGold = input.swapMethodId ? (await criticMethodContext(d, input.swapMethodId)).gold : null;
        const rate = async (goldText: string | undefined, callKey: string, i: number) => {
          if (goldText === undefined) return null;
          currentActivity()?.heartbeat(callKey);
          const r = await rateCriticStep(deps, {
            model: c.model,
            methodId: m.id,
            callKey,
            input: { signature, goldDescription: goldText, before: callsBefore(ex, i), step: ex[i]!.calls },
            format: c.format,
          });
          return r.reward;
        };
        const base = `critic-card/on-policy/${c.model}/${input.episodeId}`;
        for (const i of rated) {
          const idx = ex[i]!.idx;
          const own = await rate(gold?.text, `${base}#${idx}`, i);
          const swapped = await rate(swapGold?.text, `${base}#${idx}#swap`, i);
          const why = gold ? 'no rating in the answer (unparsable)' : 'the method has no gold or accepted reference description';
          steps.push({ idx, own, swapped, ...(own === null ? { unrated: why } : {}) });
        }
      }
      const row: OnPolicyRolloutRatings = {
        episodeId: input.episodeId,
        methodId: input.methodId,
        swapMethodId: input.swapMethodId,
        steps,
        ms: Date.now() - started,
      };
      await d
        .update(onPolicyCriticCards)
        .set({
          rollouts: sql`jsonb_set(${onPolicyCriticCards.rollouts}, array[${input.episodeId}::text], ${JSON.stringify(row)}::jsonb)`,
          updatedAt: new Date(),
        })
        .where(eq(onPolicyCriticCards.cardKey, input.cardKey));
      return { steps: steps.length, unrated: steps.filter((s) => s.own === null).length };
    },

    /**
     * Every critic's card from the stored rows: the facts of each ended rollout (its code match, the execution
     * labels, the free rule's classes), each critic's measures and checks (the free rule's rho the one to beat),
     * stored and returned without their rollouts, in the order given.
     */
    async finishOnPolicyCard(input: {
      runId: string;
      methods: number;
      critics: OnPolicyCritic[];
      cardKeys: string[];
      /** Wall time of each critic's pass in this run of the card; null: it rated nothing now (the stored time stays). */
      passMs: (number | null)[];
      thresholds?: Partial<OnPolicyThresholds>;
    }): Promise<OnPolicyCriticCard[]> {
      const d = db();
      const [run] = await d.select().from(runs).where(eq(runs.id, input.runId));
      if (!run) throw ApplicationFailure.nonRetryable(`no run ${input.runId}`, FAILURE_TYPES.runNotFound);
      const config = parseRunConfig('critic-card', run.config, input.runId);
      const rows = await d.select().from(onPolicyCriticCards).where(inArray(onPolicyCriticCards.cardKey, input.cardKeys));
      const byKey = new Map(rows.map((r) => [r.cardKey, r]));
      const ratingsOf = (k: OnPolicyCritic['kind']) => {
        const i = input.critics.findIndex((c) => c.kind === k);
        return new Map(Object.entries(byKey.get(input.cardKeys[i] ?? '')?.rollouts ?? {}));
      };
      const exec = ratingsOf('exec');
      const rule = ratingsOf('rule');
      const facts = (await loadRolloutRows(d, input.runId, config.judgeModel, null))
        .filter((r) => (ENDED as readonly string[]).includes(r.status))
        .flatMap((r) => {
          const f = rolloutFacts({
            episodeId: r.episodeId,
            methodId: r.methodId,
            codeMatch: rolloutCodeMatch(r),
            exec: exec.get(r.episodeId),
            rule: rule.get(r.episodeId),
          });
          return f ? [f] : [];
        });
      const thresholds = { ...DEFAULT_ON_POLICY_THRESHOLDS, ...(input.thresholds ?? {}) };
      const labels = input.critics.map(criticLabelOf);
      const verdicts = scoreOnPolicyCritics(
        facts,
        new Map(labels.map((label, i) => [label, new Map(Object.entries(byKey.get(input.cardKeys[i]!)?.rollouts ?? {}))])),
        criticLabelOf({ kind: 'rule' }),
        thresholds,
      );
      const now = new Date();
      const cards: OnPolicyCriticCard[] = [];
      for (const i of input.critics.keys()) {
        const row = byKey.get(input.cardKeys[i]!);
        if (!row) throw ApplicationFailure.nonRetryable(`no on-policy critic card ${input.cardKeys[i]}`, FAILURE_TYPES.criticCardNoEpisodes);
        const v = verdicts.get(labels[i]!)!;
        const card: OnPolicyCriticCard = {
          cardKey: row.cardKey,
          critic: row.critic,
          format: row.format,
          criticParams: row.criticParams,
          promptVersion: row.promptVersion,
          policy: row.policy,
          dataset: row.dataset,
          split: row.split,
          runId: row.runId,
          label: labels[i]!,
          methods: input.methods,
          group: config.group,
          ...v,
          thresholds,
          passMs: input.passMs[i] ?? row.card?.passMs ?? null,
          computedAt: now.toISOString(),
          workflowId: row.workflowId,
        };
        await d
          .update(onPolicyCriticCards)
          .set({ status: 'completed', card, qualified: card.qualified, finishedAt: now, updatedAt: now })
          .where(eq(onPolicyCriticCards.cardKey, row.cardKey));
        cards.push(card);
      }
      await d.update(runs).set({ status: 'completed', finishedAt: now, updatedAt: now }).where(eq(runs.id, input.runId));
      return cards;
    },
  };
}

export type OnPolicyCardActivities = ReturnType<typeof createOnPolicyCardActivities>;
