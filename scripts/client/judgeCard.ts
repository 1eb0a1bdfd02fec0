// Reading judge cards from the client side: the progress of a card being computed.
import { desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { judgeCards } from '../../db/schema/index';

/** Methods recorded so far by the card computed by this workflow; null before its row exists. */
export async function judgeCardProgress(db: Db, workflowId: string): Promise<number | null> {
  const [r] = await db
    .select({ n: sql<number>`(select count(*) from jsonb_object_keys(${judgeCards.rows}))::int` })
    .from(judgeCards)
    .where(eq(judgeCards.workflowId, workflowId))
    .orderBy(desc(judgeCards.updatedAt))
    .limit(1);
  return r ? r.n : null;
}
