// The shipped judge card's activities (queue `pau`): find the card shipped with the benchmark whose key holds
// here and plan its sample; then, with the sample re-judged (scoreCardRungs with `verify`), hold it to the
// agreement rule and, when it agrees, store the card built from the shipped rows as this machine's card.
// Rules and schema: domain/judge/shippedCard.ts; files: platform/judge/shippedCardFile.ts.
import { ApplicationFailure } from '@temporalio/common';
import type { Db } from '../../db/client';
import { judgeCards } from '../../db/schema/judgeCards';
import { buildJudgeCard } from '../../domain/judge/cardSummary';
import {
  classifierControlOf,
  type RescoredScore,
  sampleAgreement,
  sampleMethodIds,
  type ShippedCardCheck,
  type ShippedCardCheckInput,
  type ShippedCardPlan,
} from '../../domain/judge/shippedCard';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import { findShippedCard, readShippedCard, repoPath } from '../../platform/judge/shippedCardFile';
import { callingWorkflowId } from '../common/workflowContext';
import { cardKeyOf, contrastsOf, splitWithReferences } from './card';

export function createShippedCardActivities(db: () => Db) {
  return {
    /** The shipped card whose key holds here and the sample to re-judge; or why none applies. */
    async planShippedCard(input: ShippedCardCheckInput): Promise<ShippedCardPlan | Extract<ShippedCardCheck, { status: 'none' | 'ignored' }>> {
      const found = await findShippedCard(db(), input, input.cardsDir);
      if (found.status !== 'matches') return found;
      const methodIds = found.card.rows.map((r) => r.methodId);
      const { all, refs } = await splitWithReferences(db(), input.dataset, input.split);
      const present = new Set(all.map((m) => m.id));
      const absent = methodIds.filter((id) => !present.has(id));
      // The key's content hash holds, so this cannot happen short of a hand-edited file: refuse it by name.
      if (absent.length > 0)
        return { status: 'ignored', why: [`${repoPath(found.file)} names methods not in ${input.dataset}/${input.split}: ${absent.slice(0, 5).join(', ')}`] };
      const sample = sampleMethodIds(found.card);
      return {
        status: 'matches',
        file: found.file,
        fileSha256: found.sha256,
        methodIds,
        sample,
        contrasts: contrastsOf(all, refs, sample),
        judgeParams: found.card.key.judgeParams,
      };
    },

    /**
     * The sample's scores against the shipped rows; when they agree, the card built from the shipped rows (its
     * measures and checks recomputed here, never read from the file) is stored as this machine's card, under a
     * key of its own so that `calibrate judge` still computes its own in full.
     */
    async acceptShippedCard(
      input: ShippedCardCheckInput & { file: string; fileSha256: string; rescored: { methodId: string; scores: RescoredScore[] }[] },
    ): Promise<ShippedCardCheck> {
      const r = readShippedCard(input.file);
      if (!r.ok || r.sha256 !== input.fileSha256)
        throw ApplicationFailure.nonRetryable(
          `${repoPath(input.file)} changed while its sample was judged (${r.ok ? 'other content' : r.why}); start the check again`,
          FAILURE_TYPES.badRunConfig,
        );
      const shipped = r.card;
      const key = {
        judgeModel: input.judgeModel,
        coderModel: input.coderModel,
        judgeParams: shipped.key.judgeParams,
        coderParams: shipped.key.coderParams,
        promptVersion: shipped.key.promptVersion,
        dataset: input.dataset,
        split: shipped.key.split,
      };
      const cardKey = `shipped-${cardKeyOf(key)}`;
      const classifier = classifierControlOf(shipped.rows);
      // The card's measures once: its test–retest SD sets the sample's tolerance, and they are what is stored.
      const built = buildJudgeCard({ ...key, cardKey }, shipped.rows, {
        ...(classifier ? { classifier } : {}),
        computedAt: shipped.computed.at,
        workflowId: shipped.computed.workflowId,
      });
      const sample = sampleAgreement(shipped.rows, input.rescored, built.measures.retest?.sd ?? null);
      const file = repoPath(input.file);
      if (!sample.agrees) return { status: 'disagrees', file, sample };
      const now = new Date();
      const card = {
        ...built,
        shipped: { file, fileSha256: r.sha256, computedAt: shipped.computed.at, machine: shipped.computed.machine, sample, verifiedAt: now.toISOString() },
      };
      const values = {
        ...key,
        status: 'completed' as const,
        rows: Object.fromEntries(shipped.rows.map((row) => [row.methodId, row])),
        card,
        judgeQualified: card.judgeQualified,
        coderQualified: card.coderQualified,
        workflowId: callingWorkflowId(),
        updatedAt: now,
        finishedAt: now,
      };
      await db()
        .insert(judgeCards)
        .values({ cardKey, ...values })
        .onConflictDoUpdate({ target: judgeCards.cardKey, set: values });
      return {
        status: 'verified',
        file,
        sample,
        judgeQualified: card.judgeQualified,
        ...(card.judgeQualifiedCodeOnly === undefined ? {} : { judgeQualifiedCodeOnly: card.judgeQualifiedCodeOnly }),
        coderQualified: card.coderQualified,
      };
    },
  };
}

export type ShippedCardActivities = ReturnType<typeof createShippedCardActivities>;
