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

/** A run's calls: keyed by its episodes (`<runId>/...`) and its judgments (`judge/<runId>/...`). */
const ofRun = (runId: string) => or(like(llmCalls.callKey, `${likeEscape(runId)}/%`), like(llmCalls.callKey, `judge/${likeEscape(runId)}/%`));

/** What left for the endpoints of a run's calls so far: sends (only those whose bytes left) and calls answered. */
export interface RunSends {
  sends: number;
  answered: number;
}

/** A run's sends so far; the difference across a rerun is the model calls the rerun made (the rest came from the cache). */
export async function runSends(db: Db, runId: string): Promise<RunSends> {
  const [r] = await db
    .select({
      sends: sql<number>`coalesce(sum(${llmCalls.sends}), 0)::int`,
      answered: sql<number>`count(*) filter (where ${llmCalls.state} = 'completed')::int`,
    })
    .from(llmCalls)
    .where(ofRun(runId));
  return { sends: Number(r?.sends ?? 0), answered: Number(r?.answered ?? 0) };
}

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
    .where(runId ? ofRun(runId) : undefined);
  return { calls: Number(r?.calls ?? 0), extraSends: Number(r?.extraSends ?? 0), costUsd: Number(r?.costUsd ?? 0), unanswered: Number(r?.unanswered ?? 0) };
}
