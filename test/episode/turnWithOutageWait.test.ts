// A model turn through the outage wait alone (workflows/episode/turnWithOutageWait.ts with modelTurn.ts), in a
// real workflow on the test server; the turn activity is the test's own, scripted to fail as an unreachable
// model or Postgres would after its retries (one attempt here), and markEpisodeWaiting records what it is told.
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { WAITING_FOR_DATABASE } from '../../domain/episode/outageWait';
import type { TurnInput, TurnResult } from '../../domain/episode/types';
import { LLM_ERROR_TYPES } from '../../domain/llm/errorTypes';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { PauWaitingFor } from '../../domain/temporal/searchAttributes';
import type { OutageWaitProbeInput, OutageWaitProbeResult } from '../helpers/pieceWorkflows';
import { usePieceWorker } from '../helpers/pieceWorkers';

/** Per episode: what each try of its turn does, in order (the last one repeats). */
type Try = 'model-down' | 'db-down' | 'auth' | 'ok';
const scripts = new Map<string, Try[]>();
const tries = new Map<string, number>();
/** Per episode: what markEpisodeWaiting was told (the model waited for, or null: no longer waiting). */
const waiting = new Map<string, (string | null)[]>();

const activities = {
  async agentTurn(t: TurnInput): Promise<TurnResult> {
    const n = tries.get(t.episodeId) ?? 0;
    tries.set(t.episodeId, n + 1);
    const script = scripts.get(t.episodeId) ?? ['ok'];
    const what = script[Math.min(n, script.length - 1)];
    if (what === 'model-down') throw ApplicationFailure.create({ type: LLM_ERROR_TYPES.connection, message: 'connect ECONNREFUSED 127.0.0.1:9' });
    if (what === 'db-down') throw ApplicationFailure.create({ type: FAILURE_TYPES.dbUnavailable, message: 'Postgres unavailable: connect ECONNREFUSED' });
    if (what === 'auth') throw ApplicationFailure.create({ type: LLM_ERROR_TYPES.auth, message: '401 bad key', nonRetryable: true });
    return { nextIdx: t.idx + 1, calls: [], answer: 'text', text: 'back', tokensIn: 1, tokensOut: 1, costUsd: 0, cached: false, problems: 0 };
  },
  async markEpisodeWaiting(input: { episodeId: string; waiting: { model: string } | null }): Promise<void> {
    waiting.set(input.episodeId, [...(waiting.get(input.episodeId) ?? []), input.waiting?.model ?? null]);
  },
};

const piece = usePieceWorker({ activities });

let n = 0;
function start(script: Try[], waitMs: number, firstRetryMs?: number) {
  const episodeId = `piece-outage-${Date.now().toString(36)}-${++n}`;
  scripts.set(episodeId, script);
  const input: OutageWaitProbeInput = { episodeId, model: 'piece-model', waitMs, ...(firstRetryMs !== undefined ? { firstRetryMs } : {}) };
  const handle = piece.client.workflow.start('outageWaitProbe', { taskQueue: TASK_QUEUES.main, workflowId: episodeId, args: [input] });
  return { episodeId, result: async () => (await (await handle).result()) as OutageWaitProbeResult, handle };
}

async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('a turn through the outage wait', () => {
  it('waits out an unreachable model, saying so on the episode row, and clears it when the model answers', async () => {
    // Tries 0.5 s apart (the run config's outageFirstRetrySeconds), not 5 s: what is checked is the tries and the rows.
    const run = start(['model-down', 'ok'], 3_000, 500);
    expect(await run.result()).toEqual({ end: 'answered', tries: 2, text: 'back' });
    expect(waiting.get(run.episodeId)).toEqual(['piece-model', null]);
  });

  it('Postgres down: no row to write while it is, the row says so once the wait turns into a model wait', async () => {
    const run = start(['db-down', 'model-down', 'ok'], 10_000, 500);
    expect(await run.result()).toEqual({ end: 'answered', tries: 3, text: 'back' });
    expect(waiting.get(run.episodeId)).toEqual(['piece-model', null]);
  });

  it('fails with a typed, non-retryable error once the outage outlasts the wait', async () => {
    const run = start(['model-down'], 1_000);
    const r = await run.result();
    expect(r).toMatchObject({ end: 'failed', type: FAILURE_TYPES.modelOutageTooLong, tries: 2 });
    expect(r.end === 'failed' && r.message).toMatch(/^model piece-model unreachable for \d+ s, longer than the run's outage wait \(1 s\)/);
  });

  it('an error no wait can fix fails the turn at once', async () => {
    const run = start(['auth', 'ok'], 60_000);
    expect(await run.result()).toMatchObject({ end: 'failed', tries: 1 });
    expect(waiting.get(run.episodeId)).toBeUndefined();
  });

  it('shows what it waits for in PauWaitingFor, and a cancellation ends the wait', async () => {
    const run = start(['db-down'], 600_000);
    const handle = await run.handle;
    await until('PauWaitingFor', async () => (await handle.describe()).typedSearchAttributes.get(PauWaitingFor) === WAITING_FOR_DATABASE);
    await handle.cancel();
    expect(await run.result()).toEqual({ end: 'cancelled', tries: 1 });
  });
});
