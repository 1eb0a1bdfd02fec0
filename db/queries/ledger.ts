// The LLM call ledger's read for reports and the CLI: what may have been paid twice (the writes are
// activities/llm/ledger.ts, beside the calls they record).
import { like, or, sql } from 'drizzle-orm';
import type { Db } from '../client';
import { llmCalls } from '../schema/llm';

export interface PaidTwice {
  /** Calls sent again after a send with no recorded outcome (a crash mid-request). */
  calls: number;
  /** Extra sends in all. */
  extraSends: number;
  /** What the extra sends cost, at each call's recorded price (an estimate: the lost replies were not seen). */
  costUsd: number;
  /** Calls sent and never answered (still in flight, or lost). */
  unanswered: number;
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The ledger's count of work possibly paid twice, for one run (calls keyed by its episodes) or all. */
export async function paidTwice(db: Db, runId?: string): Promise<PaidTwice> {
  const [r] = await db
    .select({
      calls: sql<number>`count(*) filter (where ${llmCalls.resent} > 0)::int`,
      extraSends: sql<number>`coalesce(sum(${llmCalls.resent}), 0)::int`,
      costUsd: sql<number>`coalesce(sum(${llmCalls.resent} * ${llmCalls.costUsd}), 0)::float8`,
      unanswered: sql<number>`count(*) filter (where ${llmCalls.state} = 'sent')::int`,
    })
    .from(llmCalls)
    .where(runId ? or(like(llmCalls.callKey, `${likeEscape(runId)}/%`), like(llmCalls.callKey, `judge/${likeEscape(runId)}/%`)) : undefined);
  return { calls: Number(r?.calls ?? 0), extraSends: Number(r?.extraSends ?? 0), costUsd: Number(r?.costUsd ?? 0), unanswered: Number(r?.unanswered ?? 0) };
}
