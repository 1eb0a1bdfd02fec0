// A finished run's summary tables: per model × setting (with k, the number of examples, for in-context),
// then per source × model × setting: episodes, failures, how they ended, calls, tokens, cost.
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { methods } from '../../db/schema/datasets';
import { episodes } from '../../db/schema/runs';
import { formatTable } from '../../domain/report/table';

export interface SummaryRow {
  model: string;
  setting: string;
  /** Set on the per-source rows. */
  source?: string;
  episodes: number;
  failed: number;
  described: number;
  avgCalls: number;
  /** In-context: the fewest and most examples an episode was shown (null for interactive). */
  kMin: number | null;
  kMax: number | null;
  tokens: number;
  costUsd: number;
}

const columns = {
  episodes: sql<number>`count(*)::int`,
  failed: sql<number>`count(*) filter (where ${episodes.status} = 'failed')::int`,
  described: sql<number>`count(*) filter (where ${episodes.finalDescription} is not null and ${episodes.finalDescription} <> '')::int`,
  avgCalls: sql<number>`coalesce(avg(${episodes.callsMade}),0)::float8`,
  kMin: sql<number | null>`min(${episodes.inContextK})`,
  kMax: sql<number | null>`max(${episodes.inContextK})`,
  tokens: sql<number>`coalesce(sum(${episodes.tokensIn} + ${episodes.tokensOut}),0)::bigint`,
  costUsd: sql<number>`coalesce(sum(${episodes.costUsd}),0)::float8`,
};

function toRow(r: Omit<SummaryRow, 'source'> & { source?: string | null }): SummaryRow {
  return {
    model: r.model,
    setting: r.setting,
    ...(r.source !== undefined ? { source: r.source ?? 'unknown' } : {}),
    episodes: Number(r.episodes),
    failed: Number(r.failed),
    described: Number(r.described),
    avgCalls: Number(r.avgCalls),
    kMin: r.kMin === null ? null : Number(r.kMin),
    kMax: r.kMax === null ? null : Number(r.kMax),
    tokens: Number(r.tokens),
    costUsd: Number(r.costUsd),
  };
}

export async function loadRunSummary(db: Db, runId: string): Promise<SummaryRow[]> {
  const rows = await db
    .select({ model: episodes.model, setting: episodes.setting, ...columns })
    .from(episodes)
    .where(sql`${episodes.runId} = ${runId}`)
    .groupBy(episodes.model, episodes.setting)
    .orderBy(episodes.model, episodes.setting);
  return rows.map(toRow);
}

/** The same per source (the method's dataset source). */
export async function loadRunSummaryBySource(db: Db, runId: string): Promise<SummaryRow[]> {
  const rows = await db
    .select({ source: methods.source, model: episodes.model, setting: episodes.setting, ...columns })
    .from(episodes)
    .leftJoin(methods, sql`${methods.id} = ${episodes.methodId}`)
    .where(sql`${episodes.runId} = ${runId}`)
    .groupBy(methods.source, episodes.model, episodes.setting)
    .orderBy(methods.source, episodes.model, episodes.setting);
  return rows.map(toRow);
}

/** `20`, or `3-20` when episodes saw different numbers of examples; `-` for interactive. */
export function kText(r: Pick<SummaryRow, 'kMin' | 'kMax'>): string {
  if (r.kMin === null || r.kMax === null) return '-';
  return r.kMin === r.kMax ? String(r.kMin) : `${r.kMin}-${r.kMax}`;
}

export function formatRunSummary(rows: SummaryRow[]): string {
  const bySource = rows.some((r) => r.source !== undefined);
  return formatTable(
    [...(bySource ? ['source'] : []), 'model', 'setting', 'k', 'episodes', 'failed', 'with description', 'avg calls', 'tokens', 'cost USD'],
    rows.map((r) => [
      ...(bySource ? [r.source ?? ''] : []),
      r.model,
      r.setting,
      kText(r),
      r.episodes,
      r.failed,
      r.described,
      r.avgCalls.toFixed(1),
      r.tokens,
      r.costUsd.toFixed(4),
    ]),
  );
}

/** Both tables, as `bench status` and `bench run` print them. */
export async function runSummaryText(db: Db, runId: string): Promise<string> {
  const [all, bySource] = await Promise.all([loadRunSummary(db, runId), loadRunSummaryBySource(db, runId)]);
  return `${formatRunSummary(all)}\n\nper source:\n${formatRunSummary(bySource)}\n(k: in-context examples shown per episode)`;
}
