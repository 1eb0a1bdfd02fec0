// The LLM activity against the scripted server: 429 with Retry-After is retried after that delay, 503
// Loading model is waited out inside the attempt, 401 is not retried; the concurrency cap holds across connections; the registry validates its file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import OpenAI from 'openai';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireSlot, capUnreachable, closeSlotPool, heldSlots, queuedForSlot } from '../../activities/llm/concurrency';
import { reloadEnv } from '../../config/env';
import { retryAfterMs, toFailure } from '../../activities/llm/errors';
import { buildRegistry, loadModelsFile, ModelConfigError, apiKeyFor } from '../../config/models';
import { ADD, insertFixtureMethods } from '../fixtures/episodeMethods';
import { runEpisode } from '../episode/helpers';
import { episodeWorkflowId } from '../../domain/bench/workflowIds';
import { useStack } from '../helpers/stack';
import { LOADING_ANSWERS } from '../../platform/models/mock/server';

// These tests read agentTurn's activity attempts from the history: the scripted models' turns run as normal
// activities here (local turns, the default for them, are covered by test/episode/inline.test.ts).
process.env.PAU_LOCAL_TURN_MAX_SECONDS = '0';

const stack = useStack({
  workers: ['pau', 'pau-sandbox'],
  setup: async ({ db }) => {
    await insertFixtureMethods(db, 'fixture-llm', [ADD]);
  },
});
afterAll(async () => {
  await closeSlotPool();
});

async function agentTurnAttempts(workflowId: string): Promise<{ attempt: number; time: number }[]> {
  const history = await stack.client.workflow.getHandle(workflowId).fetchHistory();
  const scheduled = new Map<string, string>();
  const out: { attempt: number; time: number }[] = [];
  for (const e of history.events ?? []) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s) scheduled.set(String(e.eventId), s.activityType?.name ?? '');
    const st = e.activityTaskStartedEventAttributes;
    if (st && scheduled.get(String(st.scheduledEventId)) === 'agentTurn')
      out.push({ attempt: st.attempt ?? 1, time: Number(e.eventTime?.seconds ?? 0) * 1000 + Math.floor((e.eventTime?.nanos ?? 0) / 1e6) });
  }
  return out;
}

describe('LLM activity retries', () => {
  it('429 with Retry-After: the turn is retried after the delay and the episode completes', async () => {
    const started = Date.now();
    const out = await runEpisode(stack.client, stack.db, ADD.id, 'mock-ratelimit', 'interactive', { runId: `llm-429-${Date.now().toString(36)}` });
    expect(out).toMatchObject({ status: 'completed', endReason: 'submitted', callsMade: 4 });
    // Two turns, each answered 429 once (Retry-After: 1) then 200: the started attempts are 1, 2, 1, 2.
    const attempts = await agentTurnAttempts(episodeWorkflowId(out.episodeId.split('/')[0]!, ADD.id, 'mock-ratelimit', 'interactive', 0));
    // The history keeps the last attempt of each activity: each turn needed at least one retry.
    expect(attempts).toHaveLength(2);
    expect(attempts.every((a) => a.attempt >= 2)).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000); // two Retry-After delays of 1 s
    // (The scripted server answers 429 once per distinct request body: the first time this test runs
    // against the test run's one mock server.)
  });

  it("503 Loading model from the project's own server (a restart with new settings) is waited out inside the turn: no retried attempt", async () => {
    const started = Date.now();
    const out = await runEpisode(stack.client, stack.db, ADD.id, 'mock-loading', 'interactive', { runId: `llm-503-${Date.now().toString(36)}` });
    expect(out).toMatchObject({ status: 'completed', endReason: 'submitted', callsMade: 4 });
    // Two turns, each answered 503 Loading model twice then 200, all within the turn's first attempt.
    const attempts = await agentTurnAttempts(episodeWorkflowId(out.episodeId.split('/')[0]!, ADD.id, 'mock-loading', 'interactive', 0));
    expect(attempts.map((a) => a.attempt)).toEqual([1, 1]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2 * LOADING_ANSWERS * 1000); // a 1 s wait before each resend
  });

  it('401 is not retried: the episode fails once, naming the auth error', async () => {
    const runId = `llm-401-${Date.now().toString(36)}`;
    const out = await runEpisode(stack.client, stack.db, ADD.id, 'mock-unauthorized', 'interactive', { runId });
    expect(out.status).toBe('failed');
    expect(out.error).toMatch(/LlmAuthError/);
    expect((await agentTurnAttempts(episodeWorkflowId(runId, ADD.id, 'mock-unauthorized', 'interactive', 0))).map((a) => a.attempt)).toEqual([1]);
  });

  it('classifies provider errors: Retry-After becomes the next retry delay; 400/401 are non-retryable', () => {
    const h = new Headers({ 'retry-after': '7' });
    const f429 = toFailure(OpenAI.APIError.generate(429, { message: 'slow down' }, undefined, h), 'm') as ApplicationFailure;
    expect(f429).toBeInstanceOf(ApplicationFailure);
    expect(f429.nonRetryable).toBe(false);
    expect(f429.type).toBe('LlmRateLimited');
    expect(f429.nextRetryDelay).toBe(7000);
    const f503 = toFailure(OpenAI.APIError.generate(503, { message: 'down' }, undefined, new Headers()), 'm') as ApplicationFailure;
    expect([f503.type, f503.nonRetryable, f503.nextRetryDelay]).toEqual(['LlmServerError', false, undefined]);
    for (const status of [400, 401, 403, 404, 422]) {
      const f = toFailure(OpenAI.APIError.generate(status, { message: 'no' }, undefined, new Headers()), 'm') as ApplicationFailure;
      expect(f.nonRetryable).toBe(true);
    }
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250' }))).toBe(250);
    expect(retryAfterMs(new Headers({ 'retry-after': new Date(Date.now() + 5000).toUTCString() }))).toBeGreaterThan(3000);
  });
});

describe('per-model concurrency cap', () => {
  it('holds across connections (advisory-lock slots) and frees a slot on release', async () => {
    const model = `cap-test-${Date.now()}`;
    const a = await acquireSlot(model, 2);
    const b = await acquireSlot(model, 2);
    expect(new Set([a.slot, b.slot]).size).toBe(2);
    expect(await heldSlots(model, 2)).toBe(2);
    let third: Awaited<ReturnType<typeof acquireSlot>> | undefined;
    const waiting = acquireSlot(model, 2, { pollMs: 50 }).then((s) => (third = s));
    await new Promise((r) => setTimeout(r, 400));
    expect(third).toBeUndefined();
    await a.release();
    await waiting;
    expect(third?.slot).toBe(a.slot);
    await b.release();
    await third!.release();
    expect(await heldSlots(model, 2)).toBe(0);
  });

  it("grants a busy model's slots first come, first served (no waiter overtakes an earlier one)", async () => {
    const model = `fifo-test-${Date.now()}`;
    const first = await acquireSlot(model, 1);
    const order: number[] = [];
    const waiters: Promise<void>[] = [];
    // Six requests arrive one after another while the only slot is busy (each queued before the next).
    for (let i = 0; i < 6; i++) {
      waiters.push(
        acquireSlot(model, 1, { pollMs: 20 }).then(async (s) => {
          order.push(i);
          await new Promise((r) => setTimeout(r, 30)); // a short call; later waiters keep polling meanwhile
          await s.release();
        }),
      );
      await expect.poll(() => queuedForSlot(model), { timeout: 10_000, interval: 20 }).toBe(i === 0 ? 0 : i);
      if (i === 0) await new Promise((r) => setTimeout(r, 100)); // the first one holds the gate, polling
    }
    await first.release();
    await Promise.all(waiters);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
    expect(await heldSlots(model, 1)).toBe(0);
  });

  it('a request cancelled while queued leaves the queue at once, and the next one gets the slot', async () => {
    const model = `fifo-cancel-${Date.now()}`;
    const first = await acquireSlot(model, 1);
    const head = acquireSlot(model, 1, { pollMs: 20 }); // holds the gate, polling
    await new Promise((r) => setTimeout(r, 100));
    const ac = new AbortController();
    const cancelled = acquireSlot(model, 1, { signal: ac.signal }).then(
      () => 'granted',
      (e: unknown) => (e as Error).message,
    );
    await expect.poll(() => queuedForSlot(model), { timeout: 10_000, interval: 20 }).toBe(1);
    const behind = acquireSlot(model, 1, { pollMs: 20 });
    await expect.poll(() => queuedForSlot(model), { timeout: 10_000, interval: 20 }).toBe(2);
    ac.abort(new Error('activity cancelled'));
    expect(await cancelled).toBe('activity cancelled');
    await expect.poll(() => queuedForSlot(model), { timeout: 10_000, interval: 20 }).toBe(1);
    await first.release();
    await (await head).release();
    await (await behind).release();
    expect(await heldSlots(model, 1)).toBe(0);
  });
});

describe('a cap the deployment cannot reach (PAU_LLM_MAX_CALLERS)', () => {
  const withCallers = async (callers: string | undefined, body: () => Promise<void>) => {
    const before = process.env.PAU_LLM_MAX_CALLERS;
    if (callers === undefined) delete process.env.PAU_LLM_MAX_CALLERS;
    else process.env.PAU_LLM_MAX_CALLERS = callers;
    reloadEnv();
    try {
      await body();
    } finally {
      if (before === undefined) delete process.env.PAU_LLM_MAX_CALLERS;
      else process.env.PAU_LLM_MAX_CALLERS = before;
      reloadEnv();
    }
  };

  it('takes no slot when the callers are at most the cap, and takes one otherwise', async () => {
    const model = `uncapped-${Date.now()}`;
    await withCallers('2', async () => {
      expect(capUnreachable(2)).toBe(true);
      const [a, b, c] = [await acquireSlot(model, 2), await acquireSlot(model, 2), await acquireSlot(model, 2)];
      expect(await heldSlots(model, 2)).toBe(0);
      await Promise.all([a, b, c].map((s) => s.release()));
    });
    await withCallers('3', async () => {
      expect(capUnreachable(2)).toBe(false);
      const s = await acquireSlot(model, 2);
      expect(await heldSlots(model, 2)).toBe(1);
      await s.release();
    });
    await withCallers(undefined, async () => {
      expect(capUnreachable(1000)).toBe(false);
    });
  });
});

describe('model registry', () => {
  it('has the scripted mock models and the local models built in and resolves mock-<policy>', () => {
    const reg = buildRegistry();
    expect(reg.names()).toEqual(['mock-oracle', 'mock-null', 'mock-random', 'local/smollm2-135m', 'local/qwen2.5-coder-0.5b', 'local/qwen2.5-coder-1.5b']);
    expect(reg.get('mock-refuse')).toMatchObject({ provider: 'mock', model: 'refuse' });
    expect(() => reg.get('gpt-nope')).toThrow(ModelConfigError);
    expect(reg.configured()).toEqual([]);
  });

  it('validates the models file and reads API keys from the variable named', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-models-'));
    const file = path.join(dir, 'pau.models.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        default: ['gpt-4o'],
        models: {
          'gpt-4o': {
            baseUrl: 'https://api.openai.com/v1',
            model: 'gpt-4o',
            apiKeyEnv: 'OPENAI_API_KEY',
            inputUsdPerMTok: 2.5,
            outputUsdPerMTok: 10,
            maxConcurrency: 8,
          },
        },
      }),
    );
    const reg = buildRegistry(loadModelsFile(file));
    const m = reg.get('gpt-4o');
    expect(m).toMatchObject({ provider: 'openai', maxConcurrency: 8, params: { temperature: 0 } });
    expect(reg.defaults).toEqual(['gpt-4o']);
    expect(() => apiKeyFor(m, {})).toThrow(/OPENAI_API_KEY is not set/);
    expect(apiKeyFor(m, { OPENAI_API_KEY: 'sk-x' })).toBe('sk-x');
    fs.writeFileSync(file, JSON.stringify({ models: { bad: { model: 'x' } } }));
    expect(() => loadModelsFile(file)).toThrow(/models\.bad\.baseUrl: required/);
    fs.writeFileSync(file, JSON.stringify({ models: { x: { baseUrl: 'http://h/v1', model: 'x', apiKey: 'sk-literal' } } }));
    expect(() => loadModelsFile(file)).toThrow(ModelConfigError);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
