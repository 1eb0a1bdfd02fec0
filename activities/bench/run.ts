// A benchmark run in Postgres: the `runs` row, the frozen list of method ids it covers, failures of
// episodes that could not record their own, and progress for the CLI.
import { ApplicationFailure } from '@temporalio/common';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { datasetMethods, datasets, episodes, judgments, methods, runs, steps } from '../../db/schema/index';
import { callingWorkflowId } from '../common/workflowContext';
import { parseJsonb } from '../../db/jsonb';
import { type BenchmarkConfig, type RunTotals, type StoredConfig, storedBenchmarkConfigSchema } from '../../domain/bench/types';
import { sameRunConfig } from '../../domain/bench/runConfig';
import type { EpisodeOutcome } from '../../domain/episode/types';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';

/** A benchmark run's stored config, parsed at the read. */
export function storedConfigOf(runId: string, config: unknown): StoredConfig {
  return parseJsonb(storedBenchmarkConfigSchema, config, { table: 'runs', column: 'config', row: runId });
}

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

export function makeStartRun(db: () => Db) {
  /**
   * Records the run (the row exists from here on, whatever happens next), refuses a config other than the
   * one the run id already holds, and freezes its method list. Returns the number of methods.
   */
  return async function startRun(input: { runId: string; config: BenchmarkConfig }): Promise<{ methods: number }> {
    const d = db();
    const workflowId = callingWorkflowId();
    const [existing] = await d.select().from(runs).where(eq(runs.id, input.runId)).limit(1);
    const stored = existing?.kind === 'benchmark' ? storedConfigOf(input.runId, existing.config) : undefined;
    if (existing && (existing.kind !== 'benchmark' || (stored && !sameRunConfig(stored, input.config))))
      throw ApplicationFailure.nonRetryable(
        `run id ${input.runId} is already used by another run (${existing.kind}, created ${existing.createdAt.toISOString()}); a run id names one run`,
        FAILURE_TYPES.runIdInUse,
      );
    const now = new Date();
    await d
      .insert(runs)
      .values({ id: input.runId, kind: 'benchmark', status: 'running', config: input.config, workflowId, startedAt: now })
      .onConflictDoUpdate({
        target: runs.id,
        set: {
          status: 'running',
          workflowId,
          error: null,
          finishedAt: null,
          cancelRequestedAt: null,
          startedAt: sql`coalesce(${runs.startedAt}, ${now})`,
          updatedAt: now,
        },
      });
    if (stored?.resolvedMethodIds) return { methods: stored.resolvedMethodIds.length };
    const ids = await resolveMethods(d, input.config);
    const config: StoredConfig = { ...input.config, resolvedMethodIds: ids };
    await d.update(runs).set({ config, updatedAt: new Date() }).where(eq(runs.id, input.runId));
    return { methods: ids.length };
  };
}

export function makeMethodPage(db: () => Db) {
  return async function methodPage(input: { runId: string; offset: number; limit: number }): Promise<string[]> {
    const [row] = await db().select({ config: runs.config }).from(runs).where(eq(runs.id, input.runId)).limit(1);
    const ids = (row ? storedConfigOf(input.runId, row.config) : undefined)?.resolvedMethodIds ?? [];
    return ids.slice(input.offset, input.offset + input.limit);
  };
}

export function makeRecordEpisodeFailure(db: () => Db) {
  /** For an episode whose workflow failed before it could record its own end. */
  return async function recordEpisodeFailure(input: {
    runId: string;
    episodeId: string;
    methodId: string;
    model: string;
    setting: 'interactive' | 'in-context';
    sample: number;
    error: string;
  }): Promise<void> {
    const now = new Date();
    await db()
      .insert(episodes)
      .values({
        id: input.episodeId,
        runId: input.runId,
        methodId: input.methodId,
        model: input.model,
        setting: input.setting,
        sample: input.sample,
        status: 'failed',
        endReason: 'workflow_failed',
        error: input.error,
        finishedAt: now,
      })
      .onConflictDoUpdate({
        target: episodes.id,
        set: { status: 'failed', endReason: 'workflow_failed', error: input.error, finishedAt: now, updatedAt: now },
      });
  };
}

export function makeEpisodeOutcome(db: () => Db) {
  /**
   * A resumed run's episode that already ended (completed or failed): its stored outcome, so it is not run
   * again. With `judgeModel`, `unjudged` says a completed episode has no judgment by it (its run was
   * terminated between the episode's end and the start of its judge step).
   */
  return async function episodeOutcome(input: { episodeId: string; judgeModel?: string }): Promise<(EpisodeOutcome & { unjudged?: true }) | null> {
    const [e] = await db().select().from(episodes).where(eq(episodes.id, input.episodeId)).limit(1);
    if (!e || (e.status !== 'completed' && e.status !== 'failed')) return null;
    const unjudged =
      e.status === 'completed' &&
      input.judgeModel !== undefined &&
      (
        await db()
          .select({ one: sql`1` })
          .from(judgments)
          .where(and(eq(judgments.episodeId, e.id), eq(judgments.judgeModel, input.judgeModel)))
          .limit(1)
      ).length === 0;
    return {
      ...(unjudged ? { unjudged: true as const } : {}),
      episodeId: e.id,
      status: e.status,
      endReason: e.endReason ?? '',
      callsMade: e.callsMade,
      turns: 0,
      tokensIn: e.tokensIn,
      tokensOut: e.tokensOut,
      costUsd: e.costUsd,
      ...(e.error ? { error: e.error } : {}),
    };
  };
}

export function makeFlagRunCancelling(db: () => Db) {
  /**
   * Records that a cancellation reached the run's workflow. Episodes whose turns run as local activities
   * read it after each turn (agentTurn's `runCancelling`), so their cancellation is seen at that turn's
   * boundary instead of at their workflow task's heartbeat. Idempotent: the first request's time is kept.
   */
  return async function flagRunCancelling(input: { runId: string }): Promise<void> {
    const now = new Date();
    await db()
      .update(runs)
      .set({ cancelRequestedAt: sql`coalesce(${runs.cancelRequestedAt}, ${now})`, updatedAt: now })
      .where(eq(runs.id, input.runId));
  };
}

export function makeFinishRun(db: () => Db) {
  return async function finishRun(input: {
    runId: string;
    status: 'completed' | 'completed_with_failures' | 'failed' | 'cancelled';
    summary: RunTotals & { total: number };
    error?: string;
  }): Promise<void> {
    const now = new Date();
    await db()
      .update(runs)
      .set({ status: input.status, summary: input.summary, error: input.error ?? null, finishedAt: now, updatedAt: now })
      .where(eq(runs.id, input.runId));
    // A cancelled run: episodes that never reached a turn boundary (not started, or lost) are marked too.
    if (input.status === 'cancelled')
      await db()
        .update(episodes)
        .set({ status: 'cancelled', error: input.error ?? 'run cancelled', finishedAt: now, updatedAt: now })
        .where(and(eq(episodes.runId, input.runId), inArray(episodes.status, ['pending', 'running'])));
  };
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
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
  startedAt: Date | null;
  finishedAt: Date | null;
}

/** Progress from Postgres (what the CLI's progress bar shows). Not an activity. */
export async function runProgress(d: Db, runId: string): Promise<RunProgress | undefined> {
  const [run] = await d.select().from(runs).where(eq(runs.id, runId)).limit(1);
  if (!run) return undefined;
  // Another kind of run has no benchmark config: it counts no planned episodes (as before).
  const c: Partial<StoredConfig> = run.kind === 'benchmark' ? storedConfigOf(runId, run.config) : {};
  const total = (c.resolvedMethodIds?.length ?? 0) * (c.models?.length ?? 0) * (c.settings?.length ?? 0) * (c.samples ?? 1);
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
  return {
    runId,
    status: run.status,
    total,
    done: Number(agg?.done ?? 0),
    failed: Number(agg?.failed ?? 0),
    running: Number(agg?.running ?? 0),
    cancelled: Number(agg?.cancelled ?? 0),
    waiting: waiting.map((w) => ({ model: w.model, episodes: Number(w.episodes), since: new Date(w.since), error: w.error })),
    tokensIn: Math.max(Number(agg?.tokensIn ?? 0), Number(live?.tokensIn ?? 0)),
    tokensOut: Math.max(Number(agg?.tokensOut ?? 0), Number(live?.tokensOut ?? 0)),
    costUsd: Number(agg?.costUsd ?? 0),
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
  };
}
