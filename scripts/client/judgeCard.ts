// Judge and critic cards from the client side: the progress of a card being computed, and the gate before judging.
import type { WorkflowHandle } from '@temporalio/client';
import { desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { criticCards } from '../../db/schema/criticCards';
import { judgeCardStatus } from '../../db/queries/judgeCards';
import { judgeCardLines } from '../../domain/judge/cardSummary';
import { coderModelOf } from '../../domain/judge/config';
import { UsageError } from '../lib/args';
import { judgeCardProgressQuery } from '../../workflows/judge/judgeCardQueries';
import { type CardProgress, watchCard } from './cardWatch';

/** watchCard for a judge card: the methods of this card recorded, asked of its workflow (judgeCardProgressQuery). */
export function watchJudgeCard<R>(
  handle: Pick<WorkflowHandle, 'query'> & { result(): Promise<R> },
  total: number,
  onProgress: (p: CardProgress) => void,
  pollMs = 2000,
): Promise<R> {
  return watchCard(() => handle.query(judgeCardProgressQuery), handle, total, onProgress, pollMs);
}

/** Episodes recorded so far by the critic card computed by this workflow; null before its row exists. */
export async function criticCardProgress(db: Db, workflowId: string): Promise<number | null> {
  const [r] = await db
    .select({ n: sql<number>`(select count(*) from jsonb_object_keys(${criticCards.episodes}))::int` })
    .from(criticCards)
    .where(eq(criticCards.workflowId, workflowId))
    .orderBy(desc(criticCards.updatedAt))
    .limit(1);
  return r ? r.n : null;
}

/**
 * The gate before a run is judged: a judge whose card failed is refused (a UsageError, exit 2) unless
 * the user forces it (a code writer that failed only loses the code-match column); a judge without a card runs, with a note that its scores will be
 * withheld until `calibrate judge` has measured it. Returns the lines to print.
 */
export async function checkJudgeCard(db: Db, q: { judgeModel: string; coderModel?: string; dataset: string; allowUnqualified: boolean }): Promise<string[]> {
  const coderModel = coderModelOf({}, q.judgeModel, q.coderModel);
  const status = await judgeCardStatus(db, { judgeModel: q.judgeModel, coderModel, dataset: q.dataset, forced: q.allowUnqualified });
  if (status.status === 'missing') {
    return [
      `judge card of ${q.judgeModel}${coderModel !== q.judgeModel ? ` (coder ${coderModel})` : ''}: none yet; the report withholds scores until it exists: ${status.command}`,
    ];
  }
  const lines = judgeCardLines(status.card);
  const coderNote = status.card.coderQualified ? [] : [`the code writer ${coderModel} did not qualify: the report withholds code match`];
  if (status.status === 'qualified') return [...lines, ...coderNote];
  if (!q.allowUnqualified) {
    throw new UsageError(
      `the judge ${q.judgeModel} did not qualify on its judge card:\n${lines.join('\n')}\npass --allow-unqualified-judge to run anyway (the report then marks its scores)`,
    );
  }
  return [...lines, ...coderNote, 'running with an unqualified judge (--allow-unqualified-judge): the report marks its scores'];
}
