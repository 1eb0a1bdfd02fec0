// A finished run's summary table: per model × setting, episodes, failures, how they ended, calls, tokens, cost.
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { episodes } from '../../db/schema/index';
import { formatTable } from '../../domain/report/table';

export interface SummaryRow {
  model: string;
  setting: string;
  episodes: number;
  failed: number;
  described: number;
  avgCalls: number;
  tokens: number;
  costUsd: number;
}

export async function loadRunSummary(db: Db, runId: string): Promise<SummaryRow[]> {
  const rows = await db
    .select({
      model: episodes.model,
      setting: episodes.setting,
      episodes: sql<number>`count(*)::int`,
      failed: sql<number>`count(*) filter (where ${episodes.status} = 'failed')::int`,
      described: sql<number>`count(*) filter (where ${episodes.finalDescription} is not null and ${episodes.finalDescription} <> '')::int`,
      avgCalls: sql<number>`coalesce(avg(${episodes.callsMade}),0)::float8`,
      tokens: sql<number>`coalesce(sum(${episodes.tokensIn} + ${episodes.tokensOut}),0)::bigint`,
      costUsd: sql<number>`coalesce(sum(${episodes.costUsd}),0)::float8`,
    })
    .from(episodes)
    .where(sql`${episodes.runId} = ${runId}`)
    .groupBy(episodes.model, episodes.setting)
    .orderBy(episodes.model, episodes.setting);
  return rows.map((r) => ({
    ...r,
    episodes: Number(r.episodes),
    failed: Number(r.failed),
    described: Number(r.described),
    avgCalls: Number(r.avgCalls),
    tokens: Number(r.tokens),
    costUsd: Number(r.costUsd),
  }));
}

export function formatRunSummary(rows: SummaryRow[]): string {
  return formatTable(
    ['model', 'setting', 'episodes', 'failed', 'with description', 'avg calls', 'tokens', 'cost USD'],
    rows.map((r) => [r.model, r.setting, r.episodes, r.failed, r.described, r.avgCalls.toFixed(1), r.tokens, r.costUsd.toFixed(4)]),
  );
}
