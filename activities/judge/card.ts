// Judge-card activities (queue `pau`): plan a card (its methods, its key), score one rung of one method
// with the judge, write code from one rung with the coder, classify one labelled description, record a
// method's row and finish the card. The sandbox runs (the original and each coded rung on the held-out
// set) happen in judgeCardWorkflow between them. Every model call goes through the llm_calls cache with
// a deterministic key, so a retried or rerun card costs nothing it already paid for.
import { ApplicationFailure } from '@temporalio/common';
import { eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import type { ModelEndpoints } from '../llm/endpoints';
import { type MethodRow, methods } from '../../db/schema/datasets';
import { judgeCards } from '../../db/schema/judgeCards';
import { getDatasetMethods } from '../../platform/dataset/store';
import { acceptedReferenceDescriptions, goldOrReference } from '../../platform/dataset/referenceDescriptions';
import type { Split } from '../../domain/dataset/split';
import { codeMatchOf, codeMatchPlan, countedInputs, DEFAULT_HELDOUT } from '../../domain/judge/codeMatch';
import { chooseByAgreement, coderSamplesOf } from '../../domain/judge/mbrExec';
import { entryPointOf } from '../../domain/dataset/entryPoint';
import {
  CODE_ONLY_RUNGS,
  DEFAULT_THRESHOLDS,
  judgeModeOf,
  RETEST_RUNGS,
  judgePromptVersion,
  type JudgeMode,
  type CardMethodPlan,
  type CardMethodRow,
  type CardRung,
  type JudgeCardInput,
  type JudgeCardKey,
  type JudgeCardPlan,
} from '../../domain/judge/card';
import { buildCardItems, codedRungs, contradictionPair, type CardItem, type CardMethod } from '../../domain/judge/cardRungs';
import { buildJudgeCard } from '../../domain/judge/cardSummary';
import { classifierControlOf } from '../../domain/judge/shippedCard';
import { buildContradictionMessages, parseContradiction } from '../../domain/judge/contradictionPrompt';
import { DEFAULT_JUDGE_FORMAT, type JudgeFormat } from '../../domain/judge/judgePrompt';
import { judgeFormat, type ScoreCase } from '../../domain/judge/formats';
import { DEFAULT_EQUALITY } from '../../domain/judge/outcomeEquality';
import type { CallResult } from '../../domain/sandbox/schemas';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import { callingWorkflowId } from '../common/workflowContext';
import { activityChatDeps } from '../llm/activity';
import { chat } from '../llm/chat';
import { requestHash } from '../../domain/common/hash';
import { scoreDescriptions, sentParams, writeCode } from './activities';
import { contrastMethodById, splitContrastOrder } from './contrastMethod';
import { contrastMethodId, roundRobinBySource, type ContrastMethod } from '../../domain/judge/formats/contrast';
import type { DescriptionVerdict } from '../../domain/judge/types';
import { heartbeat } from '@temporalio/activity';

/** The card's identity: a hash of (judge, coder, the params sent, prompt version, dataset split). */
export function cardKeyOf(key: JudgeCardKey): string {
  return requestHash(key).slice(0, 24);
}

function keyOf(
  input: Pick<JudgeCardInput, 'judgeModel' | 'coderModel' | 'dataset' | 'split' | 'judgeParams' | 'coderParams' | 'format' | 'coderSamples'>,
): JudgeCardKey {
  return {
    judgeModel: input.judgeModel,
    coderModel: input.coderModel,
    judgeParams: sentParams(input.judgeModel, input.judgeParams),
    coderParams: sentParams(input.coderModel, input.coderParams),
    promptVersion: judgePromptVersion(input.format ?? DEFAULT_JUDGE_FORMAT, coderSamplesOf(input.coderSamples)),
    dataset: input.dataset,
    split: input.split,
  };
}

/**
 * The description one card rung scores: the benchmark's prompt, the method's own gold as reference. In the
 * code-only mode the reference is hidden from the method and from its contrast, exactly as a CRUXEval method
 * is judged on the benchmark.
 */
function cardScoreCase(m: MethodRow, item: CardItem, rung: CardRung, model: string, contrast: ContrastMethod | null, ask: CardAsk = FIRST_ASK): ScoreCase {
  const codeOnly = ask.mode === 'codeOnly';
  return {
    methodId: m.id,
    callKey: `card/${m.id}/${model}/${ask.verify ? 'verify/' : ''}${ask.retest ? 'retest/' : ''}${codeOnly ? 'code-only/' : ''}${rungKey(item, rung)}`,
    input: {
      signature: m.signature ?? `def ${entryPointOf(m)}(...)`,
      code: m.code,
      goldDescription: codeOnly ? null : m.goldDescription,
      agentDescription: item.descriptions[rung] ?? '',
    },
    contrast: contrast && codeOnly ? { ...contrast, input: { ...contrast.input, goldDescription: null } } : contrast,
  };
}

/** How a rung is asked: in which mode, and whether anew: as the test–retest repeat, or re-judging a shipped card's sample. */
interface CardAsk {
  mode: JudgeMode;
  retest?: boolean;
  verify?: boolean;
}
const FIRST_ASK: CardAsk = { mode: 'reference' };

/** What a card records of one rung's verdict: the score, its argmax digit, low mass, the rationale (capped), and how it was asked when not first. */
function rungScore(rung: CardRung, v: DescriptionVerdict, ask: CardAsk = FIRST_ASK) {
  return {
    rung,
    ...(ask.mode === 'codeOnly' ? { mode: ask.mode } : {}),
    ...(ask.retest ? { retest: true } : {}),
    score: v.score,
    argmax: v.scoreDetail?.argmax ?? null,
    ...(v.scoreDetail?.lowMass ? { lowMass: true } : {}),
    rationale: v.rationale.slice(0, 2000),
  };
}

const observationsOf = (m: MethodRow): CardMethod['observations'] =>
  m.probeInputs.flatMap((args, i) => {
    const o = m.probeOutputs?.[i];
    if (!o) return [];
    return [{ arguments: args, ok: o.ok, text: o.ok ? (o.repr ?? '') : `${o.excType ?? 'Exception'}: ${o.message ?? ''}` }];
  });

/** The card's methods (ordered by the plan's list) with their rungs, rebuilt the same way by every activity. */
async function cardItems(db: Db, methodIds: readonly string[]): Promise<{ rows: Map<string, MethodRow>; items: Map<string, CardItem>; methods: CardMethod[] }> {
  const rows = new Map(
    (
      await db
        .select()
        .from(methods)
        .where(inArray(methods.id, [...methodIds]))
    ).map((m) => [m.id, m]),
  );
  const refs = await acceptedReferenceDescriptions(db, [...methodIds]);
  const cms: CardMethod[] = methodIds.flatMap((id) => {
    const m = rows.get(id);
    const ref = m ? goldOrReference(m, refs) : null;
    return m && ref ? [{ id, source: m.source, entryPoint: entryPointOf(m), reference: ref.text, observations: observationsOf(m) }] : [];
  });
  return { rows, items: new Map(buildCardItems(cms).map((it) => [it.methodId, it])), methods: cms };
}

async function itemOf(db: Db, methodIds: readonly string[], methodId: string) {
  const { rows, items, methods: cms } = await cardItems(db, methodIds);
  const m = rows.get(methodId);
  const item = items.get(methodId);
  const cm = cms.find((c) => c.id === methodId);
  if (!m || !item || !cm) throw ApplicationFailure.nonRetryable(`method ${methodId} is not usable in this card`, FAILURE_TYPES.methodNotFound);
  return { m, item, cm };
}

/** The call key of one rung: `wrong` (and `injection`) depend on which method lent its gold. */
const rungKey = (item: CardItem, rung: CardRung) => (rung === 'wrong' || rung === 'injection' ? `${rung}-from/${item.wrongFrom}` : rung);

/** A split's methods and the accepted reference descriptions of those without a gold one. */
export async function splitWithReferences(db: Db, dataset: string, split: string) {
  const all = await getDatasetMethods(db, dataset, { split: split as Split });
  const refs = await acceptedReferenceDescriptions(
    db,
    all.filter((m) => !m.goldDescription?.trim()).map((m) => m.id),
  );
  return { all, refs };
}

/** The contrast format's second method per card method: the benchmark's rule over the whole split. */
export function contrastsOf(
  all: Awaited<ReturnType<typeof splitWithReferences>>['all'],
  refs: Awaited<ReturnType<typeof splitWithReferences>>['refs'],
  ids: readonly string[],
): Record<string, string | null> {
  const order = splitContrastOrder(all, refs).map((id) => ({ id }));
  return Object.fromEntries(ids.map((id) => [id, contrastMethodId(order, id)]));
}

export function createJudgeCardActivities(db: () => Db, endpoints: ModelEndpoints) {
  return {
    /** The card's key and methods; creates (or, with force, resets) its row. */
    async planJudgeCard(input: JudgeCardInput): Promise<JudgeCardPlan> {
      let coderSamples: number;
      try {
        coderSamples = coderSamplesOf(input.coderSamples);
      } catch (err) {
        throw ApplicationFailure.nonRetryable((err as Error).message, FAILURE_TYPES.badRunConfig);
      }
      const key = keyOf(input);
      const cardKey = cardKeyOf(key);
      const { all, refs } = await splitWithReferences(db(), input.dataset, input.split);
      const usable = all.filter((m) => goldOrReference(m, refs) !== null);
      const skip = input.skip ?? 0;
      const picked = roundRobinBySource(usable, skip + input.methods)
        .slice(skip)
        .map((m) => m.id);
      if (picked.length < 2)
        throw ApplicationFailure.nonRetryable(
          `${input.dataset}/${input.split} has ${picked.length} method(s) with a gold or accepted reference description; a judge card needs at least 2`,
          FAILURE_TYPES.judgeCardNoMethods,
        );
      const values = {
        cardKey,
        ...key,
        status: 'running' as const,
        workflowId: callingWorkflowId(),
        updatedAt: new Date(),
      };
      const [existing] = await db().select({ rows: judgeCards.rows, status: judgeCards.status }).from(judgeCards).where(eq(judgeCards.cardKey, cardKey));
      const keep = existing && !input.force;
      await db()
        .insert(judgeCards)
        .values({ ...values, rows: {} })
        .onConflictDoUpdate({
          target: judgeCards.cardKey,
          set: { ...values, ...(keep ? {} : { rows: {}, card: null, judgeQualified: null, coderQualified: null, finishedAt: null }) },
        });
      const recorded = keep ? Object.keys(existing.rows ?? {}).filter((id) => picked.includes(id)) : [];
      const contrasts = contrastsOf(all, refs, picked);
      return { cardKey, methodIds: picked, recorded, judgeParams: key.judgeParams, coderParams: key.coderParams, contrasts, coderSamples };
    },

    async prepareCardMethod(input: { methodIds: string[]; methodId: string; codeAllRungs?: boolean }): Promise<CardMethodPlan> {
      const { m, item, cm } = await itemOf(db(), input.methodIds, input.methodId);
      const plan = codeMatchPlan(m, DEFAULT_HELDOUT);
      const rungs = Object.keys(item.descriptions) as CardRung[];
      const mode = judgeModeOf(m);
      return {
        methodId: m.id,
        source: m.source,
        ...(item.nearMissChange ? { nearMissChange: item.nearMissChange } : {}),
        rungs,
        mode,
        // A method judged against the code alone already scored its rungs so.
        codeOnlyRungs: mode === 'reference' ? CODE_ONLY_RUNGS.filter((r) => rungs.includes(r)) : [],
        retestRungs: RETEST_RUNGS.filter((r) => rungs.includes(r)),
        coded: codedRungs(rungs, input.codeAllRungs),
        heldout:
          plan.excluded || plan.heldout.length === 0
            ? null
            : { source: plan.source, entryPoint: plan.entryPoint, calls: plan.heldout, nGiven: plan.nGiven, raisingCounts: plan.raisingCounts },
        classifier: contradictionPair(cm) !== null,
      };
    },

    /**
     * The judge's scores of a method's rungs, one request after another so each reuses the method's prompt
     * prefix in the server's cache, in the order the format plans them (domain/judge/formats/; the contrast
     * format: every rung beside the contrast method, then every rung beside the method), the `codeOnlyRungs`
     * with the reference hidden (marked `mode: 'codeOnly'`) in the same plan; last the `retestRungs` asked
     * anew (marked `retest`), after the others so the server's cache and batch are not as they were.
     */
    async scoreCardRungs(input: {
      methodIds: string[];
      methodId: string;
      rungs: CardRung[];
      codeOnlyRungs?: CardRung[];
      retestRungs?: CardRung[];
      judgeModel: string;
      params: Record<string, unknown>;
      format?: JudgeFormat;
      contrastMethodId?: string | null;
      /** Re-judging a shipped card's sample: every ask anew, under its own call keys (no retest). */
      verify?: boolean;
    }) {
      const { m, item } = await itemOf(db(), input.methodIds, input.methodId);
      const format = input.format ?? DEFAULT_JUDGE_FORMAT;
      const c = judgeFormat(format).besideAnother && input.contrastMethodId ? await contrastMethodById(db(), input.contrastMethodId) : null;
      // One plan for the first asks in both modes: a format that asks beside another method asks every case
      // there first, so the contrast method's code is processed once for both modes, then the method's own.
      const scored = async (asks: readonly { rung: CardRung; ask: CardAsk }[], fresh: boolean) => {
        const verdicts = await scoreDescriptions(
          db,
          endpoints,
          {
            model: input.judgeModel,
            params: input.params,
            format,
            cases: asks.map((a) => cardScoreCase(m, item, a.rung, input.judgeModel, c, a.ask)),
            ...(fresh ? { fresh } : {}),
          },
          heartbeat,
        );
        return verdicts.map((v, i) => rungScore(asks[i]!.rung, v, asks[i]!.ask));
      };
      const verify = input.verify ? { verify: true } : {};
      const first = [
        ...input.rungs.map((rung) => ({ rung, ask: { ...FIRST_ASK, ...verify } })),
        ...(input.codeOnlyRungs ?? []).map((rung) => ({ rung, ask: { mode: 'codeOnly' as const, ...verify } })),
      ];
      const retest = (input.retestRungs ?? []).map((rung) => ({ rung, ask: { mode: 'reference', retest: true } as const }));
      return [...(await scored(first, input.verify === true)), ...(await scored(retest, true))];
    },

    /** Code the coder writes from one rung's description (the empty rung: from the name and signature alone). */
    async writeCardCode(input: {
      methodIds: string[];
      methodId: string;
      rung: CardRung;
      coderModel: string;
      params: Record<string, unknown>;
      sample?: number;
    }) {
      const { m, item } = await itemOf(db(), input.methodIds, input.methodId);
      const entry = entryPointOf(m);
      const g = await writeCode(db, endpoints, {
        model: input.coderModel,
        methodId: m.id,
        callKey: `card-code/${m.id}/${input.coderModel}/${rungKey(item, input.rung)}`,
        signature: m.signature ?? `def ${entry}(...)`,
        entryPoint: entry,
        description: item.descriptions[input.rung] ?? '',
        params: input.params,
        ...(input.sample ? { sample: input.sample } : {}),
      });
      return { rung: input.rung, code: g.code };
    },

    /** The contradiction classifier on one labelled description of the method: is its verdict right? */
    async classifyCardPair(input: { methodIds: string[]; methodId: string; judgeModel: string; params: Record<string, unknown> }) {
      const { m, cm } = await itemOf(db(), input.methodIds, input.methodId);
      const pair = contradictionPair(cm);
      if (!pair) return { n: 0, correct: 0, unparsable: 0 };
      let correct = 0;
      let unparsable = 0;
      for (const [label, description] of [
        ['consistent', pair.consistent],
        ['contradicting', pair.contradicting],
      ] as const) {
        const messages = buildContradictionMessages({
          signature: m.signature ?? `def ${cm.entryPoint}(...)`,
          entryPoint: cm.entryPoint,
          description,
          observations: cm.observations,
        });
        const r = await chat(
          {
            model: input.judgeModel,
            messages,
            params: sentParams(input.judgeModel, input.params),
            callKey: `card-classify/${m.id}/${input.judgeModel}/${label}`,
            about: { methodId: m.id },
          },
          activityChatDeps(db, endpoints),
        );
        const parsed = parseContradiction(r.message.content ?? r.message.refusal ?? '', cm.observations.length);
        if (!parsed) unparsable++;
        else if ((label === 'contradicting') === (parsed.verdict === 'contradicts')) correct++;
      }
      return { n: 2, correct, unparsable };
    },

    /** Code match of each coded rung on the held-out set, and the method's row stored in the card. */
    async recordCardMethod(input: {
      cardKey: string;
      methodId: string;
      /** Every scored rung; those with `mode: 'codeOnly'` were scored again with the reference hidden. */
      scores: { rung: CardRung; score: number | null; argmax?: number | null; lowMass?: boolean; mode?: JudgeMode; retest?: boolean }[];
      /** The method's benchmark mode (absent: recorded before modes). */
      mode?: JudgeMode;
      original: CallResult[] | null;
      nGiven: number;
      raisingCounts: boolean;
      /**
       * Per coded rung: the generated code's results (null: no code or it did not compile); with k > 1
       * programs, `samples` holds each program's (program 0 first) and MBR-exec keeps one.
       */
      candidates: { rung: CardRung; results: CallResult[] | null; samples?: (CallResult[] | null)[] }[];
      classifier: { n: number; correct: number; unparsable: number } | null;
      nearMissChange?: string;
      source: string;
    }): Promise<CardMethodRow> {
      const counted = input.original ? countedInputs(input.original, input.nGiven, input.raisingCounts) : [];
      const match = (results: CallResult[] | null) => (input.original ? codeMatchOf(input.original, results, counted, DEFAULT_EQUALITY) : null);
      const kept = input.candidates.map((c) => {
        if (!c.samples || c.samples.length < 2) return { rung: c.rung, results: c.results, sampled: null };
        const { chosen } = chooseByAgreement(c.samples, DEFAULT_EQUALITY);
        return { rung: c.rung, results: c.samples[chosen] ?? null, sampled: { matches: c.samples.map(match), chosen } };
      });
      const sampled = kept.flatMap((c) => (c.sampled ? [[c.rung, c.sampled] as const] : []));
      const main = input.scores.filter((s) => s.mode !== 'codeOnly' && !s.retest);
      const codeOnly = input.scores.filter((s) => s.mode === 'codeOnly');
      const retest = input.scores.filter((s) => s.retest);
      const row: CardMethodRow & { classifier?: { n: number; correct: number; unparsable: number } } = {
        methodId: input.methodId,
        source: input.source,
        scores: Object.fromEntries(main.map((s) => [s.rung, s.score])),
        argmax: Object.fromEntries(main.map((s) => [s.rung, s.argmax ?? null])),
        ...(main.some((s) => s.lowMass) ? { lowMass: main.filter((s) => s.lowMass).map((s) => s.rung) } : {}),
        ...(input.mode ? { mode: input.mode } : {}),
        ...(codeOnly.length > 0 ? { codeOnlyScores: Object.fromEntries(codeOnly.map((s) => [s.rung, s.score])) } : {}),
        ...(retest.length > 0 ? { retestScores: Object.fromEntries(retest.map((s) => [s.rung, s.score])) } : {}),
        codeMatch: Object.fromEntries(kept.map((c) => [c.rung, match(c.results)])),
        ...(sampled.length > 0 ? { codeSamples: Object.fromEntries(sampled) } : {}),
        ...(input.nearMissChange ? { nearMissChange: input.nearMissChange } : {}),
        ...(input.classifier ? { classifier: input.classifier } : {}),
      };
      await db()
        .update(judgeCards)
        .set({ rows: sql`jsonb_set(${judgeCards.rows}, array[${input.methodId}::text], ${JSON.stringify(row)}::jsonb)`, updatedAt: new Date() })
        .where(eq(judgeCards.cardKey, input.cardKey));
      return row;
    },

    /** The card from its stored rows: measures, checks, qualification; stored and returned without rows. */
    async finishJudgeCard(input: { cardKey: string; methodIds: string[]; failed: number; thresholds?: JudgeCardInput['thresholds'] }) {
      const [r] = await db().select().from(judgeCards).where(eq(judgeCards.cardKey, input.cardKey));
      if (!r) throw ApplicationFailure.nonRetryable(`no judge card ${input.cardKey}`, FAILURE_TYPES.judgeCardNoMethods);
      const stored = r.rows as Record<string, CardMethodRow & { classifier?: { n: number; correct: number; unparsable: number } }>;
      const rows = input.methodIds.flatMap((id) => (stored[id] ? [stored[id]] : []));
      const classifier = classifierControlOf(rows);
      const card = buildJudgeCard(
        {
          cardKey: r.cardKey,
          judgeModel: r.judgeModel,
          coderModel: r.coderModel,
          judgeParams: r.judgeParams,
          coderParams: r.coderParams,
          promptVersion: r.promptVersion,
          dataset: r.dataset,
          split: r.split,
        },
        rows,
        {
          thresholds: { ...DEFAULT_THRESHOLDS, ...(input.thresholds ?? {}) },
          ...(classifier ? { classifier } : {}),
          computedAt: new Date().toISOString(),
          workflowId: r.workflowId,
        },
      );
      await db()
        .update(judgeCards)
        .set({
          status: 'completed',
          card,
          judgeQualified: card.judgeQualified,
          coderQualified: card.coderQualified,
          finishedAt: new Date(),
          updatedAt: new Date(),
        })
        .where(eq(judgeCards.cardKey, input.cardKey));
      const { rows: _rows, ...summary } = card;
      return { ...summary, failedMethods: input.failed };
    },
  };
}

export type JudgeCardActivities = ReturnType<typeof createJudgeCardActivities>;
