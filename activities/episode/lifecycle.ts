// Start and end of an episode in Postgres: the episode row, the method the agent will probe, the
// opening prompts; then the final description and totals.
import { escapeRe, methodView } from '../../domain/episode/names';
import { ApplicationFailure } from '@temporalio/common';
import { and, eq, gte, sql } from 'drizzle-orm';
import type { PgUpdateSetSource } from 'drizzle-orm/pg-core';
import { env } from '../../config/env';
import { models } from '../../config/models';
import type { Db } from '../../db/client';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import { methods } from '../../db/schema/datasets';
import { episodes, steps } from '../../db/schema/runs';
import { callingWorkflowId, currentActivity } from '../common/workflowContext';
import { IN_CONTEXT_SYSTEM_PROMPT, interactiveSystemPrompt, interactiveUserPrompt } from '../../domain/episode/prompts';
import { upsertSteps } from './steps';
import { conversationKey, forgetConversation } from './conversationCache';
import {
  DEFAULT_BUDGETS,
  DEFAULT_IN_CONTEXT_K,
  type EpisodeBudgets,
  type EpisodeInput,
  type EpisodeOutcome,
  type PreparedEpisode,
} from '../../domain/episode/types';
import { inContextExampleSteps } from '../../domain/inputs/generator';
import { episodeBoundsProblems } from '../../domain/episode/bounds';
import { runStepsPausing } from '../../domain/common/steps';

type ExampleSource = Pick<typeof methods.$inferSelect, 'id' | 'probeInputs' | 'heldoutInputs' | 'heldoutGenerated'>;

/**
 * The in-context examples of an episode: budget-matched generated ones (default) or the first k probe
 * inputs. The generation runs in steps (domain/common/steps.ts): between two, the activity heartbeats and
 * lets the worker's event loop run, and stops once it is cancelled (a worker shutting down on SIGTERM).
 */
export async function episodeExamples(
  method: ExampleSource,
  input: Pick<EpisodeInput, 'k' | 'inContextExamples'>,
  budgets: EpisodeBudgets,
): Promise<{ mode: 'generated' | 'probe'; inputs: string[] }> {
  const mode = input.inContextExamples ?? 'generated';
  if (mode === 'probe') return { mode, inputs: (method.probeInputs ?? []).slice(0, input.k ?? DEFAULT_IN_CONTEXT_K) };
  const ctx = currentActivity();
  const steps = inContextExampleSteps(method, input.k ?? budgets.maxCalls);
  const inputs = await runStepsPausing(steps, {
    pause: async () => {
      ctx?.heartbeat();
      await new Promise((resolve) => setImmediate(resolve));
    },
    ...(ctx ? { signal: ctx.cancellationSignal } : {}),
  });
  return { mode, inputs };
}

/** The `def` line of `entry` in `code` (without the body), when the dataset stored none. */
export function signatureFromCode(code: string, entry: string | null): string | undefined {
  const re = entry
    ? new RegExp(`^\\s*(?:async\\s+)?def\\s+${escapeRe(entry)}\\s*\\([\\s\\S]*?\\)\\s*(?:->[^:]*)?:`, 'm')
    : /^\s*def\s+\w+\s*\([\s\S]*?\)\s*(?:->[^:]*)?:/m;
  return re.exec(code)?.[0].trim();
}

/**
 * Whether a model's turns run as local activities: its request timeout is at most
 * PAU_LOCAL_TURN_MAX_SECONDS (Temporal's local activities are for work of seconds; the workflow task stays
 * open while one runs). Checkpoint models (`ckpt:`, local servers) and unknown names: normal activities.
 */
export function localTurnsFor(model: string): boolean {
  const maxMs = env().PAU_LOCAL_TURN_MAX_SECONDS * 1000;
  try {
    return maxMs > 0 && models().get(model).timeoutMs <= maxMs;
  } catch {
    return false;
  }
}

/** What names an episode's row: its id and the run, method, model, setting and sample it is of. */
export type EpisodeIdentity = Pick<EpisodeInput, 'episodeId' | 'runId' | 'methodId' | 'model' | 'setting' | 'sample'>;

/** The columns of an episode's row other than its identity. */
type EpisodeState = Omit<typeof episodes.$inferInsert, 'id' | 'runId' | 'methodId' | 'model' | 'setting' | 'sample'>;

/**
 * The one writer of an episode's row: inserted with its identity and `state`, or, where the row exists,
 * `state` written over it with `updatedAt`, then `overExisting` (a column whose new value depends on the old).
 */
export async function upsertEpisode(d: Db, e: EpisodeIdentity, state: EpisodeState, overExisting: PgUpdateSetSource<typeof episodes> = {}): Promise<void> {
  await d
    .insert(episodes)
    .values({ id: e.episodeId, runId: e.runId, methodId: e.methodId, model: e.model, setting: e.setting, sample: e.sample, ...state })
    .onConflictDoUpdate({ target: episodes.id, set: { ...state, updatedAt: new Date(), ...overExisting } });
}

export function makePrepareEpisode(db: () => Db) {
  return async function prepareEpisode(input: EpisodeInput): Promise<PreparedEpisode> {
    const workflowId = callingWorkflowId();
    // Before any work: a budget or k no run can use (a call budget of 10^9) is refused, not attempted.
    const outOfRange = episodeBoundsProblems(input);
    if (outOfRange.length > 0) throw ApplicationFailure.nonRetryable(`episode ${input.episodeId}: ${outOfRange.join('; ')}`, FAILURE_TYPES.badEpisodeInput);
    const d = db();
    const [method] = await d.select().from(methods).where(eq(methods.id, input.methodId)).limit(1);
    if (!method) throw ApplicationFailure.nonRetryable(`method ${input.methodId} is not in the methods table`, FAILURE_TYPES.methodNotFound);
    const entryPoint = method.entryPoint ?? /def\s+(\w+)/.exec(method.signature ?? method.code)?.[1];
    const signature = method.signature ?? signatureFromCode(method.code, entryPoint ?? null);
    if (!entryPoint || !signature)
      throw ApplicationFailure.nonRetryable(`method ${input.methodId} has no entry point or signature`, FAILURE_TYPES.methodUnusable);

    // What the agent reads: the stored name, or `f` (domain/episode/names.ts); returned only when it differs.
    const view = methodView({ entryPoint, signature }, input.names);
    const shown = input.names === 'anonymised' ? { shown: view } : {};

    const now = new Date();
    const budgets = { ...DEFAULT_BUDGETS, ...input.budgets };
    const examples = input.setting === 'in-context' ? await episodeExamples(method, input, budgets) : null;
    // k is recorded on the episode so every in-context number can be shown with it.
    const k = examples ? { inContextK: examples.inputs.length, inContextExamples: examples.mode } : { inContextK: null, inContextExamples: null };
    // From its first turn again: what served an earlier history's turns no longer describes it.
    await upsertEpisode(
      d,
      input,
      { status: 'running', workflowId, error: null, startedAt: now, sampledWith: null, ...k },
      { startedAt: sql`coalesce(${episodes.startedAt}, ${now})` },
    );

    if (input.setting === 'interactive') {
      await upsertSteps(d, input.episodeId, [
        { idx: 0, kind: 'system', agentMessage: { role: 'system', content: interactiveSystemPrompt(budgets) } },
        { idx: 1, kind: 'user', agentMessage: { role: 'user', content: interactiveUserPrompt(view.signature) } },
      ]);
      return { code: method.code, entryPoint, signature, ...shown, exampleInputs: [], nextIdx: 2, localTurns: localTurnsFor(input.model) };
    }
    await upsertSteps(d, input.episodeId, [{ idx: 0, kind: 'system', agentMessage: { role: 'system', content: IN_CONTEXT_SYSTEM_PROMPT } }]);
    return { code: method.code, entryPoint, signature, ...shown, exampleInputs: examples?.inputs ?? [], nextIdx: 1, localTurns: localTurnsFor(input.model) };
  };
}

/**
 * Adds the adapter that served one of the episode's turns to its `sampled_with` (once; a no-op write when
 * it is there already, as on a retried turn).
 */
export async function recordSampledWith(d: Db, episodeId: string, adapter: string): Promise<void> {
  await d
    .update(episodes)
    .set({ sampledWith: sql`array_append(coalesce(${episodes.sampledWith}, '{}'::text[]), ${adapter}::text)` })
    .where(and(eq(episodes.id, episodeId), sql`not (${adapter}::text = any(coalesce(${episodes.sampledWith}, '{}'::text[])))`));
}

export interface FinishEpisodeInput extends Omit<EpisodeOutcome, 'episodeId'> {
  episodeId: string;
  finalDescription: string | null;
  /** Steps at or after this index are left over from an earlier, reset history and are removed. */
  nextIdx?: number;
}

export function makeFinishEpisode(db: () => Db) {
  return async function finishEpisode(input: FinishEpisodeInput): Promise<void> {
    forgetConversation(conversationKey(input.episodeId));
    const d = db();
    if (input.nextIdx !== undefined) await d.delete(steps).where(and(eq(steps.episodeId, input.episodeId), gte(steps.idx, input.nextIdx)));
    await d
      .update(episodes)
      .set({
        status: input.status,
        finalDescription: input.finalDescription,
        endReason: input.endReason,
        error: input.error ?? null,
        callsMade: input.callsMade,
        tokensIn: input.tokensIn,
        tokensOut: input.tokensOut,
        costUsd: input.costUsd,
        waitingFor: null,
        waitingSince: null,
        waitError: null,
        finishedAt: new Date(),
        updatedAt: new Date(),
      })
      .where(eq(episodes.id, input.episodeId));
  };
}

export function makeMarkEpisodeWaiting(db: () => Db) {
  /** Records (or clears, `waiting: null`) that the episode waits out an outage of its model: `runs show` and the progress line read it. */
  return async function markEpisodeWaiting(input: { episodeId: string; waiting: { model: string; since: number; error: string } | null }): Promise<void> {
    const w = input.waiting;
    await db()
      .update(episodes)
      .set(
        w
          ? { waitingFor: w.model, waitingSince: new Date(w.since), waitError: w.error.slice(0, 2000), updatedAt: new Date() }
          : { waitingFor: null, waitingSince: null, waitError: null, updatedAt: new Date() },
      )
      .where(eq(episodes.id, input.episodeId));
  };
}
