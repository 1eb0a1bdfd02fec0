// A benchmark run's reads: the method ids a config covers and the progress the CLI shows; any run's kind and
// status. The activities that write the run (activities/bench/run.ts) and the CLI both read through here.
import { ApplicationFailure } from '@temporalio/common';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../client';
import { datasetMethods, datasets, methods } from '../schema/datasets';
import { episodes, judgments, runs, steps } from '../schema/runs';
import type { BenchmarkConfig, StoredConfig } from '../../domain/bench/types';
import { episodeSlots, runCombos } from '../../domain/bench/episodeSlots';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import { parseRunConfig } from '../runDocuments';

export type { StoredConfig };

/** The method ids a config covers; throws a non-retryable failure naming what is wrong (the CLI checks this before starting). */
export async function resolveMethods(d: Db, c: Pick<BenchmarkConfig, 'dataset' | 'split' | 'limit' | 'methodIds'>): Promise<string[]> {
  if (c.methodIds && c.methodIds.length > 0) {
    const found = await d.select({ id: methods.id }).from(methods).where(inArray(methods.id, c.methodIds));
    const have = new Set(found.map((f) => f.id));
    const missing = c.methodIds.filter((id) => !have.has(id));
    if (missing.length > 0) throw ApplicationFailure.nonRetryable(`unknown method ids: ${missing.slice(0, 5).join(', ')}`, FAILURE_TYPES.methodNotFound);
    return c.limit ? c.methodIds.slice(0, c.limit) : c.methodIds;
  }
  const [ds] = await d.select({ name: datasets.name }).from(datasets).where(eq(datasets.name, c.dataset)).limit(1);
  if (!ds) throw ApplicationFailure.nonRetryable(`dataset ${JSON.stringify(c.dataset)} does not exist (build it first)`, FAILURE_TYPES.datasetNotFound);
  const q = d
    .select({ id: datasetMethods.methodId })
    .from(datasetMethods)
    .where(and(eq(datasetMethods.datasetName, c.dataset), eq(datasetMethods.split, c.split as 'train' | 'validation' | 'test')))
    .orderBy(asc(datasetMethods.position), asc(datasetMethods.methodId));
  const rows = c.limit ? await q.limit(c.limit) : await q;
  if (rows.length === 0) throw ApplicationFailure.nonRetryable(`dataset ${c.dataset} has no methods in split ${c.split}`, FAILURE_TYPES.emptySplit);
  return rows.map((r) => r.id);
}

/** The split of each named method in the data set (a method of no split of it is absent). */
export async function methodSplits(d: Db, dataset: string, methodIds: readonly string[]): Promise<Map<string, string>> {
  const rows = await d
    .select({ id: datasetMethods.methodId, split: datasetMethods.split })
    .from(datasetMethods)
    .where(and(eq(datasetMethods.datasetName, dataset), inArray(datasetMethods.methodId, [...methodIds])));
  return new Map(rows.map((r) => [r.id, r.split]));
}

export interface RunProgress {
  runId: string;
  status: string;
  total: number;
  done: number;
  failed: number;
  running: number;
  cancelled: number;
  /** Models episodes are waiting for (an outage being waited out): how many episodes, since when. */
  waiting: { model: string; episodes: number; since: Date; error: string | null }[];
  /** Completed episodes the run's judge has judged, of `completed`; absent when the run has no judge. */
  judging?: { judged: number; completed: number };
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
  startedAt: Date | null;
  finishedAt: Date | null;
}

/** A run's kind and status (any kind), or undefined when there is no run of that id. */
export async function runKindAndStatus(d: Db, runId: string): Promise<{ kind: string; status: string } | undefined> {
  const [r] = await d.select({ kind: runs.kind, status: runs.status }).from(runs).where(eq(runs.id, runId)).limit(1);
  return r;
}

/** Progress from Postgres (what the CLI's progress bar shows). Not an activity. */
export async function runProgress(d: Db, runId: string): Promise<RunProgress | undefined> {
  const [run] = await d.select().from(runs).where(eq(runs.id, runId)).limit(1);
  if (!run) return undefined;
  // Another kind of run has no benchmark config: it counts no planned episodes (as before).
  const c: Partial<StoredConfig> = run.kind === 'benchmark' ? parseRunConfig('benchmark', run.config, runId) : {};
  const total = episodeSlots(
    c.resolvedMethodIds?.length ?? 0,
    runCombos({ models: c.models ?? [], settings: c.settings ?? [], samples: c.samples ?? 1 }),
    c.modelLimits,
  ).total;
  const [agg] = await d
    .select({
      done: sql<number>`count(*) filter (where ${episodes.status} in ('completed','failed'))::int`,
      failed: sql<number>`count(*) filter (where ${episodes.status} = 'failed')::int`,
      running: sql<number>`count(*) filter (where ${episodes.status} = 'running')::int`,
      cancelled: sql<number>`count(*) filter (where ${episodes.status} = 'cancelled')::int`,
      tokensIn: sql<number>`coalesce(sum(${episodes.tokensIn}),0)::bigint`,
      tokensOut: sql<number>`coalesce(sum(${episodes.tokensOut}),0)::bigint`,
      costUsd: sql<number>`coalesce(sum(${episodes.costUsd}),0)::float8`,
    })
    .from(episodes)
    .where(eq(episodes.runId, runId));
  // Tokens are counted live from the steps (episodes get their totals only when they finish).
  const [live] = await d
    .select({ tokensIn: sql<number>`coalesce(sum(${steps.tokensIn}),0)::bigint`, tokensOut: sql<number>`coalesce(sum(${steps.tokensOut}),0)::bigint` })
    .from(steps)
    .innerJoin(episodes, eq(episodes.id, steps.episodeId))
    .where(eq(episodes.runId, runId));
  const waiting = await d
    .select({
      model: sql<string>`${episodes.waitingFor}`,
      episodes: sql<number>`count(*)::int`,
      since: sql<Date>`min(${episodes.waitingSince})`,
      error: sql<string | null>`max(${episodes.waitError})`,
    })
    .from(episodes)
    .where(and(eq(episodes.runId, runId), eq(episodes.status, 'running'), sql`${episodes.waitingFor} is not null`))
    .groupBy(episodes.waitingFor);
  const judge = c.judgeModel;
  const [j] = judge
    ? await d
        .select({
          completed: sql<number>`count(*) filter (where ${episodes.status} = 'completed')::int`,
          judged: sql<number>`count(*) filter (where ${episodes.status} = 'completed' and exists (select 1 from ${judgments} where ${judgments.episodeId} = ${episodes.id} and ${judgments.judgeModel} = ${judge}))::int`,
        })
        .from(episodes)
        .where(eq(episodes.runId, runId))
    : [];
  return {
    runId,
    status: run.status,
    total,
    done: Number(agg?.done ?? 0),
    failed: Number(agg?.failed ?? 0),
    running: Number(agg?.running ?? 0),
    cancelled: Number(agg?.cancelled ?? 0),
    waiting: waiting.map((w) => ({ model: w.model, episodes: Number(w.episodes), since: new Date(w.since), error: w.error })),
    ...(j ? { judging: { judged: Number(j.judged), completed: Number(j.completed) } } : {}),
    tokensIn: Math.max(Number(agg?.tokensIn ?? 0), Number(live?.tokensIn ?? 0)),
    tokensOut: Math.max(Number(agg?.tokensOut ?? 0), Number(live?.tokensOut ?? 0)),
    costUsd: Number(agg?.costUsd ?? 0),
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
  };
}
