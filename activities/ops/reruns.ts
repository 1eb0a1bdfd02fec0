// Reruns of a run's failed episodes: which ones failed, and the run's totals recomputed afterwards.
import { ApplicationFailure } from '@temporalio/common';
import { and, eq, gt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import { episodes, runs } from '../../db/schema/runs';
import type { BenchmarkConfig } from '../../domain/bench/types';
import type { Setting } from '../../domain/episode/types';
import { finishedRunStatus } from '../../domain/bench/runConfig';
import { parseRunConfig } from '../../db/runDocuments';

export interface FailedEpisode {
  episodeId: string;
  methodId: string;
  model: string;
  setting: Setting;
  sample: number;
}

export function makeFailedEpisodes(db: () => Db) {
  /** The run's config and a page of its failed episodes by id (ids and identity only: payloads stay small). */
  return async function failedEpisodes(input: {
    runId: string;
    afterId?: string;
    limit?: number;
  }): Promise<{ config: BenchmarkConfig; split: string; failed: FailedEpisode[] }> {
    const d = db();
    const [run] = await d.select().from(runs).where(eq(runs.id, input.runId)).limit(1);
    if (!run) throw ApplicationFailure.nonRetryable(`no run ${input.runId}`, FAILURE_TYPES.runNotFound);
    if (run.kind !== 'benchmark')
      throw ApplicationFailure.nonRetryable(`run ${input.runId} is a ${run.kind} run, not a benchmark`, FAILURE_TYPES.runNotBenchmark);
    const rows = await d
      .select({ episodeId: episodes.id, methodId: episodes.methodId, model: episodes.model, setting: episodes.setting, sample: episodes.sample })
      .from(episodes)
      .where(and(eq(episodes.runId, input.runId), eq(episodes.status, 'failed'), ...(input.afterId !== undefined ? [gt(episodes.id, input.afterId)] : [])))
      .orderBy(episodes.id)
      .limit(input.limit ?? 500);
    const config = parseRunConfig('benchmark', run.config, input.runId);
    return { config, split: config.split ?? 'test', failed: rows };
  };
}

export function makeReopenRun(db: () => Db) {
  /** Recomputes the run's totals from its episodes and marks it running or completed. */
  return async function reopenRun(input: { runId: string; status: 'running' | 'completed' }): Promise<{ total: number; done: number; failed: number }> {
    const d = db();
    const [t] = await d
      .select({
        total: sql<number>`count(*)::int`,
        done: sql<number>`count(*) filter (where ${episodes.status} in ('completed','failed'))::int`,
        failed: sql<number>`count(*) filter (where ${episodes.status} = 'failed')::int`,
        tokensIn: sql<number>`coalesce(sum(${episodes.tokensIn}),0)::int`,
        tokensOut: sql<number>`coalesce(sum(${episodes.tokensOut}),0)::int`,
        costUsd: sql<number>`coalesce(sum(${episodes.costUsd}),0)::float8`,
      })
      .from(episodes)
      .where(eq(episodes.runId, input.runId));
    const totals = t ?? { total: 0, done: 0, failed: 0, tokensIn: 0, tokensOut: 0, costUsd: 0 };
    const now = new Date();
    await d
      .update(runs)
      .set({
        status: input.status === 'completed' ? finishedRunStatus(totals) : input.status,
        summary: sql`coalesce(${runs.summary}, '{}'::jsonb) || ${JSON.stringify(totals)}::jsonb`,
        ...(input.status === 'completed' ? { finishedAt: now } : { cancelRequestedAt: null }),
        updatedAt: now,
      })
      .where(eq(runs.id, input.runId));
    return { total: totals.total, done: totals.done, failed: totals.failed };
  };
}
