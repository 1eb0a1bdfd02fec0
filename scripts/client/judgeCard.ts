// Judge and critic cards from the client side: the progress of a card being computed, and the gate before judging.
import type { WorkflowHandle } from '@temporalio/client';
import type { Db } from '../../db/client';
import { judgeCardStatus } from '../../db/queries/judgeCards';
import { judgeCardLines } from '../../domain/judge/cardSummary';
import { coderModelOf } from '../../domain/judge/config';
import { UsageError } from '../lib/args';
import type { QueryDefinition } from '@temporalio/common';
import type { JudgeCardProgress } from '../../domain/judge/card';
import { cardLine } from './cardWatch';
import { type LineOut, lineSink, watchWorkflow } from './watchWorkflow';
import type { Client } from '@temporalio/client';
import { SAMPLE_RULE, type ShippedCardCheck, type ShippedCardCheckInput, shippedCheckLines } from '../../domain/judge/shippedCard';
import { judgeCardProgressQuery } from '../../workflows/judge/judgeCardQueries';
import { startShippedJudgeCard } from './starters';

/**
 * Waits for a judge or critic card's workflow, drawing its line (cardLine: `unit` d/n, seconds, ETA) on
 * `out`: the items of this card recorded, asked of its workflow (judgeCardProgressQuery,
 * criticCardProgressQuery), never of the row under the card's key (it may hold another pick's).
 */
export function watchCardWorkflow<R>(
  handle: Pick<WorkflowHandle, 'query'> & { result(): Promise<R> },
  progressQuery: QueryDefinition<JudgeCardProgress>,
  total: number,
  o: { unit?: string; out?: LineOut } = {},
): Promise<R> {
  return watchWorkflow(
    handle,
    cardLine(() => handle.query(progressQuery), total, o.unit),
    {
      ...(o.out ? { out: o.out } : {}),
      pollMs: { tty: 2000, plain: 2000 },
      plainMinIntervalMs: 0,
    },
  );
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

/** Checks the card shipped with the benchmark on a sample (shippedJudgeCardWorkflow), its progress and outcome to `log`. */
export async function checkShippedCard(client: Client, input: ShippedCardCheckInput, log: (line: string) => void): Promise<ShippedCardCheck> {
  const handle = await startShippedJudgeCard(client, input);
  const check = await watchCardWorkflow(handle, judgeCardProgressQuery, SAMPLE_RULE.methods, { out: lineSink(log) });
  for (const line of shippedCheckLines(check)) log(line);
  return check;
}
