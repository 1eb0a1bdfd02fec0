// Runs and their episodes, as operators list them.
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { episodes, runs } from '../../db/schema/runs';

export interface RunRow {
  id: string;
  kind: string;
  status: string;
  createdAt: Date;
  episodes: number;
  completed: number;
  failed: number;
  running: number;
  cancelled: number;
  workflowId: string | null;
}

export async function listRuns(db: Db, opts: { failedOnly?: boolean; limit?: number } = {}): Promise<RunRow[]> {
  const counts = db
    .select({
      runId: episodes.runId,
      total: sql<number>`count(*)::int`.as('total'),
      completed: sql<number>`count(*) filter (where ${episodes.status} = 'completed')::int`.as('completed'),
      failed: sql<number>`count(*) filter (where ${episodes.status} = 'failed')::int`.as('failed'),
      running: sql<number>`count(*) filter (where ${episodes.status} in ('pending','running'))::int`.as('running'),
      cancelled: sql<number>`count(*) filter (where ${episodes.status} = 'cancelled')::int`.as('cancelled'),
    })
    .from(episodes)
    .groupBy(episodes.runId)
    .as('c');
  const rows = await db
    .select({
      id: runs.id,
      kind: runs.kind,
      status: runs.status,
      createdAt: runs.createdAt,
      workflowId: runs.workflowId,
      episodes: sql<number>`coalesce(${counts.total}, 0)`,
      completed: sql<number>`coalesce(${counts.completed}, 0)`,
      failed: sql<number>`coalesce(${counts.failed}, 0)`,
      running: sql<number>`coalesce(${counts.running}, 0)`,
      cancelled: sql<number>`coalesce(${counts.cancelled}, 0)`,
    })
    .from(runs)
    .leftJoin(counts, eq(counts.runId, runs.id))
    .where(opts.failedOnly ? sql`(${runs.status} in ('failed', 'cancelled') or coalesce(${counts.failed}, 0) > 0)` : undefined)
    .orderBy(desc(runs.createdAt))
    .limit(opts.limit ?? 50);
  return rows.map((r) => ({
    ...r,
    episodes: Number(r.episodes),
    completed: Number(r.completed),
    failed: Number(r.failed),
    running: Number(r.running),
    cancelled: Number(r.cancelled),
  }));
}

export interface EpisodeLine {
  id: string;
  methodId: string;
  model: string;
  setting: string;
  sample: number;
  status: string;
  endReason: string | null;
  error: string | null;
  workflowId: string | null;
}

export async function runEpisodes(db: Db, runId: string, status?: string): Promise<EpisodeLine[]> {
  return db
    .select({
      id: episodes.id,
      methodId: episodes.methodId,
      model: episodes.model,
      setting: episodes.setting,
      sample: episodes.sample,
      status: episodes.status,
      endReason: episodes.endReason,
      error: episodes.error,
      workflowId: episodes.workflowId,
    })
    .from(episodes)
    .where(status ? and(eq(episodes.runId, runId), eq(episodes.status, status as 'failed')) : eq(episodes.runId, runId))
    .orderBy(episodes.id);
}
