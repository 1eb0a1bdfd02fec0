// A critic's newest card and what a GRPO report says about it (qualified, unqualified, missing). The card is
// computed by the critic-card activities (activities/training/criticCard.ts).
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../client';
import { criticCards } from '../schema/criticCards';
import type { CriticFormat } from '../../domain/training/criticPrompt';
import { criticFormat } from '../../domain/training/criticFormats';
import { criticCardCommand, failedCriticChecks, type CriticCard, type CriticCardStatus } from '../../domain/training/criticCard';

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

/** What a GRPO report says about its critic: the card and whether it qualified, or the command that computes it. */
export async function criticCardStatus(db: Db, q: { criticModel: string; dataset: string; format: CriticFormat }): Promise<CriticCardStatus> {
  const card = await latestCriticCard(db, q);
  if (!card) return { status: 'missing', criticModel: q.criticModel, command: criticCardCommand(q.criticModel, q.dataset, q.format) };
  const { episodes: _episodes, ...summary } = card;
  const shown = { ...summary, episodes: [] };
  return card.qualified ? { status: 'qualified', card: shown } : { status: 'unqualified', card: shown, failed: failedCriticChecks(card) };
}
