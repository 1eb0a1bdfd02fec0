// A critic's newest card and what a GRPO report says about it: its on-policy card when one exists (computed by
// activities/training/onPolicyCard.ts), else its card on recorded episodes (activities/training/criticCard.ts):
// qualified, unqualified, or missing with the command that computes it.
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../client';
import { criticCards, onPolicyCriticCards } from '../schema/criticCards';
import type { CriticFormat } from '../../domain/training/criticPrompt';
import { criticFormat } from '../../domain/training/criticFormats';
import { criticCardCommand, failedCriticChecks, type CriticCard } from '../../domain/training/criticCard';
import { EXEC_CRITIC_VERSION, isExecCritic } from '../../domain/training/execCritic';
import { onPolicyCardCommand, type OnPolicyCriticCard, type RunCriticStatus } from '../../domain/training/onPolicyCard';

/** The newest completed card of (critic, its format's params and prompt version, dataset), any split and any run. */
export async function latestCriticCard(db: Db, q: { criticModel: string; dataset: string; format: CriticFormat }): Promise<CriticCard | null> {
  const rows = await db
    .select({ card: criticCards.card })
    .from(criticCards)
    .where(
      and(
        eq(criticCards.criticModel, q.criticModel),
        eq(criticCards.dataset, q.dataset),
        eq(criticCards.promptVersion, criticFormat(q.format).promptVersion),
        eq(criticCards.status, 'completed'),
        sql`${criticCards.criticParams} = ${JSON.stringify(criticFormat(q.format).params)}::jsonb`,
      ),
    )
    .orderBy(desc(criticCards.finishedAt))
    .limit(1);
  return rows[0]?.card ?? null;
}

/** The newest completed on-policy card of (critic, its format's params and prompt version; exec: its version) on the policy's rollouts on the dataset. */
export async function latestOnPolicyCard(
  db: Db,
  q: { criticModel: string; dataset: string; format: CriticFormat; policy: string },
): Promise<OnPolicyCriticCard | null> {
  const exec = isExecCritic(q.criticModel);
  const rows = await db
    .select({ card: onPolicyCriticCards.card })
    .from(onPolicyCriticCards)
    .where(
      and(
        eq(onPolicyCriticCards.critic, q.criticModel),
        eq(onPolicyCriticCards.dataset, q.dataset),
        eq(onPolicyCriticCards.policy, q.policy),
        eq(onPolicyCriticCards.promptVersion, exec ? EXEC_CRITIC_VERSION : criticFormat(q.format).promptVersion),
        eq(onPolicyCriticCards.status, 'completed'),
        sql`${onPolicyCriticCards.criticParams} = ${JSON.stringify(exec ? {} : criticFormat(q.format).params)}::jsonb`,
      ),
    )
    .orderBy(desc(onPolicyCriticCards.finishedAt))
    .limit(1);
  return rows[0]?.card ?? null;
}

/**
 * What a GRPO report says about its critic: its on-policy card on the run's policy when one exists; else the
 * card on recorded episodes and whether it qualified, or the command that computes one (the execution
 * critic's: the on-policy card, the only one it has).
 */
export async function criticCardStatus(db: Db, q: { criticModel: string; dataset: string; format: CriticFormat; policy: string }): Promise<RunCriticStatus> {
  const onPolicy = await latestOnPolicyCard(db, q);
  if (onPolicy) return { status: 'on-policy', card: onPolicy };
  if (isExecCritic(q.criticModel))
    return { status: 'missing', criticModel: q.criticModel, command: onPolicyCardCommand(q.criticModel, q.format, q.policy, q.dataset) };
  const card = await latestCriticCard(db, q);
  if (!card) return { status: 'missing', criticModel: q.criticModel, command: criticCardCommand(q.criticModel, q.dataset, q.format) };
  const { episodes: _episodes, ...summary } = card;
  const shown = { ...summary, episodes: [] };
  return card.qualified ? { status: 'qualified', card: shown } : { status: 'unqualified', card: shown, failed: failedCriticChecks(card) };
}
