// The llm_calls ledger records a call before it is sent: a request sent again after a send with no
// recorded outcome (a crash mid-request, here an abort) is counted as possibly paid twice; a refused
// connection is no send at all.
import http from 'node:http';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { chat } from '../../activities/llm/chat';
import { llmCalls } from '../../db/schema/llm';
import { IDEMPOTENCY_HEADER } from '../../activities/llm/ledger';
import { paidTwice } from '../../db/queries/ledger';
import { useStack } from '../helpers/stack';
import { freePort, modelsFile, provider } from './helpers';
import { hostEndpoints } from '../../activities/llm/hostEndpoints';

const port = await freePort();
const mock = provider(port);
process.env.PAU_MODELS_FILE = await modelsFile({ ledgered: { policy: 'oracle', port } });

const stack = useStack();

/** A server that takes requests and never answers (the provider is working on it when the worker dies). */
async function blackHole(): Promise<{ received: Promise<void>; close: () => Promise<void> }> {
  let got: () => void = () => undefined;
  const received = new Promise<void>((r) => (got = r));
  const server = http.createServer(() => got());
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  return {
    received,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const request = (runId: string, content: string) => ({
  model: 'ledgered',
  messages: [{ role: 'user' as const, content }],
  callKey: `${runId}/fixture/add/ledgered/interactive/0#2`,
});

describe('llm_calls ledger', () => {
  it('a request re-sent after a send with no outcome is counted once as paid twice, with its cost', async () => {
    const runId = `ledger-${Date.now().toString(36)}`;
    const deps = { db: () => stack.db, endpoints: hostEndpoints };
    const hole = await blackHole();
    const abort = new AbortController();
    const lost = chat(request(runId, 'describe add'), { ...deps, signal: abort.signal });
    await hole.received;
    const [inFlight] = await stack.db
      .select()
      .from(llmCalls)
      .where(eq(llmCalls.callKey, request(runId, '').callKey));
    expect(inFlight).toMatchObject({ state: 'sent', sends: 1, resent: 0, response: null });
    abort.abort(); // the worker dies with the request in flight
    await expect(lost).rejects.toThrow();
    await hole.close();

    await mock.up();
    try {
      const r = await chat(request(runId, 'describe add'), deps);
      expect(r.cached).toBe(false);
      const [row] = await stack.db.select().from(llmCalls).where(eq(llmCalls.requestHash, r.requestHash));
      expect(row).toMatchObject({ state: 'completed', sends: 2, resent: 1 });
      // A third ask is answered from the ledger: no send, nothing more counted.
      expect((await chat(request(runId, 'describe add'), deps)).cached).toBe(true);

      // A refused connection was not processed: the next send is not counted as paid twice.
      await mock.down();
      await expect(chat(request(runId, 'another question'), deps)).rejects.toThrow(/no mock model server answers/);
      await mock.up();
      const again = await chat(request(runId, 'another question'), deps);
      // The refused attempt left nothing for the endpoint: the one send that did is the only one counted.
      const [answered] = await stack.db.select().from(llmCalls).where(eq(llmCalls.requestHash, again.requestHash));
      expect(answered).toMatchObject({ state: 'completed', sends: 1, resent: 0 });

      const paid = await paidTwice(stack.db, runId);
      expect(paid).toMatchObject({ calls: 1, extraSends: 1, unanswered: 0 });
      expect(paid.costUsd).toBeCloseTo(row?.costUsd ?? 0, 10);
    } finally {
      await mock.down();
    }
  });

  it('each send carries an Idempotency-Key: the same after a lost send, a new one after an answered error', async () => {
    const runId = `idem-${Date.now().toString(36)}`;
    const deps = { db: () => stack.db, endpoints: hostEndpoints };
    // (A question of its own: the model is deterministic, so an earlier identical one is answered from the cache.)
    const server = await recordingServer();
    try {
      // 1. Sent, never answered (the worker dies mid-request).
      server.mode = 'hang';
      const abort = new AbortController();
      const lost = chat(request(runId, `describe add (${runId})`), { ...deps, signal: abort.signal });
      await server.nextRequest();
      abort.abort();
      await expect(lost).rejects.toThrow();
      // 2. The retry of that call: the same key (a provider that honours it does not bill twice). It gets a 500.
      server.mode = 'error';
      await expect(chat(request(runId, `describe add (${runId})`), deps)).rejects.toThrow(/HTTP 500/);
      // 3. After an answered error, a fresh key: the provider may have stored the error under the old one.
      server.mode = 'ok';
      const r = await chat(request(runId, `describe add (${runId})`), deps);
      expect(r.cached).toBe(false);
      const keys = server.keys;
      expect(keys).toHaveLength(3);
      expect(keys[0]).toBe(`pau-${r.requestHash}-1`);
      expect(keys[1]).toBe(keys[0]);
      expect(keys[2]).toBe(`pau-${r.requestHash}-2`);
      const [row] = await stack.db.select().from(llmCalls).where(eq(llmCalls.requestHash, r.requestHash));
      expect(row).toMatchObject({ state: 'completed', sends: 3, resent: 1 });
    } finally {
      await server.close();
    }
  });
});

/** An OpenAI-compatible endpoint that records each request's Idempotency-Key and hangs, fails or answers. */
async function recordingServer() {
  const keys: (string | undefined)[] = [];
  let arrived: () => void = () => undefined;
  const state = {
    mode: 'ok' as 'hang' | 'error' | 'ok',
    keys,
    nextRequest: () => new Promise<void>((r) => (arrived = r)),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const key = req.headers[IDEMPOTENCY_HEADER.toLowerCase()];
      keys.push(Array.isArray(key) ? key[0] : key);
      arrived();
      if (state.mode === 'hang') return;
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (state.mode === 'error') return json(500, { error: { message: 'upstream overloaded', type: 'server_error' } });
      json(200, {
        id: 'chatcmpl-idem',
        object: 'chat.completion',
        created: 0,
        model: 'oracle',
        choices: [{ index: 0, message: { role: 'assistant', content: 'Returns the sum.' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 },
      });
    });
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  return state;
}
