// A benchmark run in Postgres: the `runs` row, the frozen list of method ids it covers, failures of
// episodes that could not record their own (its reads, progress included, are db/queries/runs.ts).
import { ApplicationFailure } from '@temporalio/common';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { episodes, judgments, runs } from '../../db/schema/runs';
import { callingWorkflowId } from '../common/workflowContext';
import type { BenchmarkConfig, RunTotals, StoredConfig } from '../../domain/bench/types';
import { sameRunConfig } from '../../domain/bench/runConfig';
import { runConfigProblems } from '../../domain/bench/configBounds';
import type { EpisodeOutcome } from '../../domain/episode/types';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import { resolveMethods } from '../../db/queries/runs';
import { parseRunConfig } from '../../db/runDocuments';
import { type EpisodeIdentity, upsertEpisode } from '../episode/lifecycle';

export function makeStartRun(db: () => Db) {
  /**
   * Records the run (the row exists from here on, whatever happens next), refuses a config other than the
   * one the run id already holds, and freezes its method list. Returns the number of methods.
   */
  return async function startRun(input: { runId: string; config: BenchmarkConfig }): Promise<{ methods: number }> {
    const d = db();
    const workflowId = callingWorkflowId();
    const problems = runConfigProblems(input.config);
    if (problems.length > 0) throw ApplicationFailure.nonRetryable(`run ${input.runId}: ${problems.join('; ')}`, FAILURE_TYPES.badRunConfig);
    const [existing] = await d.select().from(runs).where(eq(runs.id, input.runId)).limit(1);
    const stored = existing?.kind === 'benchmark' ? parseRunConfig('benchmark', existing.config, input.runId) : undefined;
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
    const ids = (row ? parseRunConfig('benchmark', row.config, input.runId) : undefined)?.resolvedMethodIds ?? [];
    return ids.slice(input.offset, input.offset + input.limit);
  };
}

export function makeRecordEpisodeFailure(db: () => Db) {
  /** For an episode whose workflow failed before it could record its own end. */
  return async function recordEpisodeFailure(input: EpisodeIdentity & { error: string }): Promise<void> {
    await upsertEpisode(db(), input, { status: 'failed', endReason: 'workflow_failed', error: input.error, finishedAt: new Date() });
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
