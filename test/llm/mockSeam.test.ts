// The scripted mock is a server of its own, reached through configuration, and what a call is about (the
// method) reaches only it: a real endpoint receives neither a method header nor a body field, its cache
// key does not depend on the method, and a mock model with no mock server answering fails at once with a
// clear, non-retryable error (no worker starts a mock server for itself).
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chat } from '../../activities/llm/chat';
import { closeSlotPool } from '../../activities/llm/concurrency';
import { MOCK_METHOD_HEADER } from '../../platform/models/mock/seam';
import { freePort } from '../../platform/process/processes';
import { mockLlmUrl } from '../../config/services';
import { TOOLS } from '../../domain/episode/prompts';
import { LLM_ERROR_TYPES } from '../../domain/llm/errorTypes';
import { ADD, insertFixtureMethods, REVERSE } from '../fixtures/episodeMethods';
import { useStack } from '../helpers/stack';
import { hostEndpoints } from '../../activities/llm/hostEndpoints';

/** A real-looking OpenAI-compatible endpoint that records each request's headers and body. */
function recordingProvider() {
  const seen: { headers: http.IncomingHttpHeaders; body: Record<string, unknown> }[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw) as Record<string, unknown>;
      seen.push({ headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'chatcmpl-rec',
          object: 'chat.completion',
          created: 0,
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 2, completion_tokens: 1, total_tokens: 3 },
        }),
      );
    });
  });
  return { server, seen };
}

let provider: ReturnType<typeof recordingProvider>;
let deadUrl: string;

// The models file exists before anything reads the registry (it is read once per process).
beforeAll(async () => {
  provider = recordingProvider();
  await new Promise<void>((resolve) => provider.server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(provider.server.address() as AddressInfo).port}/v1`;
  deadUrl = `http://127.0.0.1:${await freePort()}/v1`; // nothing listens there
  const modelsFile = path.join(process.env.PAU_STATE_DIR!, 'seam.models.json');
  fs.writeFileSync(
    modelsFile,
    JSON.stringify({
      models: {
        'recorded-real': { baseUrl, model: 'real-model', maxConcurrency: 2, timeoutMs: 10_000 },
        'mock-nowhere': { provider: 'mock', model: 'oracle', baseUrl: deadUrl, maxConcurrency: 2, timeoutMs: 10_000 },
      },
    }),
  );
  process.env.PAU_MODELS_FILE = modelsFile;
});
const stack = useStack({ setup: ({ db }) => insertFixtureMethods(db, 'fixture-seam', [ADD, REVERSE]) });
afterAll(async () => {
  await closeSlotPool();
  await new Promise((resolve) => provider?.server.close(resolve));
});

const deps = () => ({ db: () => stack.db, endpoints: hostEndpoints });
const messages = [{ role: 'user' as const, content: `seam test ${Date.now()}` }];

describe('what a call is about', () => {
  it('never reaches a real endpoint, and does not change its cache key', async () => {
    const a = await chat({ model: 'recorded-real', messages, params: { temperature: 0 }, callKey: 'seam#1', about: { methodId: ADD.id } }, deps());
    expect(a.cached).toBe(false);
    expect(provider.seen).toHaveLength(1);
    const [req] = provider.seen;
    expect(req!.headers[MOCK_METHOD_HEADER]).toBeUndefined();
    expect(JSON.stringify(req!.headers)).not.toContain(ADD.id);
    expect(JSON.stringify(req!.body)).not.toContain(ADD.id);
    expect(Object.keys(req!.body).sort()).toEqual(['messages', 'model', 'temperature']);
    // The same request about another method, or about nothing: the same cache entry, not a new call.
    const b = await chat({ model: 'recorded-real', messages, params: { temperature: 0 }, callKey: 'seam#2', about: { methodId: REVERSE.id } }, deps());
    const c = await chat({ model: 'recorded-real', messages, params: { temperature: 0 }, callKey: 'seam#3' }, deps());
    expect([b.cached, c.cached]).toEqual([true, true]);
    expect(new Set([a.requestHash, b.requestHash, c.requestHash]).size).toBe(1);
    expect(provider.seen).toHaveLength(1);
  });

  it('reaches the scripted mock (its reply depends on the method), and keys the mock cache by method', async () => {
    expect(process.env.PAU_MOCK_LLM_URL).toBe(mockLlmUrl()); // the test setup's server, found through configuration
    const ask = (methodId: string) =>
      chat(
        {
          model: 'mock-oracle',
          messages: [{ role: 'user', content: 'Start investigating.' }],
          tools: TOOLS,
          callKey: `seam-mock#${methodId}`,
          about: { methodId },
        },
        deps(),
      );
    const [add, rev, addAgain] = [await ask(ADD.id), await ask(REVERSE.id), await ask(ADD.id)];
    const args = (r: typeof add) => r.message.toolCalls.map((t) => (JSON.parse(t.arguments) as { arguments: string }).arguments);
    expect(args(add)).toEqual(ADD.probes);
    expect(args(rev)).toEqual(REVERSE.probes);
    expect(add.requestHash).not.toBe(rev.requestHash);
    expect(addAgain).toMatchObject({ cached: true, requestHash: add.requestHash });
  });
});

describe('no mock server', () => {
  it('a mock model whose server does not answer fails the call at once, retryable (an outage the episode waits out), saying how to start one', async () => {
    const started = Date.now();
    const err = await chat({ model: 'mock-nowhere', messages, callKey: 'seam#nowhere', about: { methodId: ADD.id } }, deps()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApplicationFailure);
    const f = err as ApplicationFailure;
    expect([f.type, f.nonRetryable]).toEqual([LLM_ERROR_TYPES.connection, false]);
    expect(f.message).toContain(`no mock model server answers at ${deadUrl}`);
    expect(f.message).toMatch(/stack up.*PAU_MOCK_LLM_PORT.*PAU_MOCK_LLM_URL/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
