// Credentials stay out of what the project prints, stores and sends to Temporal: the masking and redaction
// helpers; and, against a fake OpenAI-compatible provider on loopback that echoes the Authorization header
// it received in its 4xx/5xx bodies, the raised failures, the llm_calls ledger, every row in Postgres and
// the episode workflow's history (its inputs included) hold neither the API key nor the database password.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { sql } from 'drizzle-orm';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { episodeWorkflowId } from '../../domain/bench/workflowIds';
import { chat } from '../../activities/llm/chat';
import { closeSlotPool } from '../../activities/llm/concurrency';
import { toFailure } from '../../activities/llm/errors';
import { ConfigError, parseEnv } from '../../config/env';
import { maskUrl, redact, REDACTED } from '../../config/redact';
import { llmCalls } from '../../db/schema/llm';
import { runEpisode } from '../episode/helpers';
import { ADD, insertFixtureMethods } from '../fixtures/episodeMethods';
import { decodedHistoryText } from '../helpers/histories';
import { useStack } from '../helpers/stack';
import { hostEndpoints } from '../../activities/llm/hostEndpoints';

// A key in no well-known format: only the "replace the key in use" rule can catch it.
const KEY = `pau-fake-${crypto.randomBytes(20).toString('hex')}`;
const KEY_ENV = 'PAU_TEST_LEAKY_PROVIDER_KEY';

describe('maskUrl', () => {
  it('masks the password of a connection URL, alone or inside text, and leaves other URLs alone', () => {
    expect(maskUrl('postgres://pau:s3cr3t-pw_x@127.0.0.1:54329/pau')).toBe('postgres://pau:***@127.0.0.1:54329/pau');
    expect(maskUrl('postgresql://u:p%40ss@db.internal:5432/pau?sslmode=require')).toBe('postgresql://u:***@db.internal:5432/pau?sslmode=require');
    expect(maskUrl('postgres://u:p@ss@h/db')).toBe('postgres://u:***@h/db');
    expect(maskUrl('DATABASE_URL=postgres://a:b@h/db and postgres://c:d@h2/db')).toBe('DATABASE_URL=postgres://a:***@h/db and postgres://c:***@h2/db');
    expect(maskUrl('postgres://h/db?user=u&password=hunter2&sslpassword=x')).toBe('postgres://h/db?user=u&password=***&sslpassword=***');
    for (const plain of ['postgres://pau@127.0.0.1:54329/pau', 'http://127.0.0.1:8233/namespaces/default/workflows/a@b', 'http://127.0.0.1:8233']) {
      expect(maskUrl(plain)).toBe(plain);
    }
  });

  it('is what a bad DATABASE_URL shows in the configuration error', () => {
    let err: unknown;
    try {
      parseEnv({ DATABASE_URL: 'postgres://pau:hunter2hunter2@db:notaport/pau', TEMPORAL_API_KEY: '' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain('postgres://pau:***@db:notaport/pau');
    expect((err as Error).message).not.toContain('hunter2');
  });
});

describe('redact', () => {
  it('replaces the keys in use, credential headers and well-known key formats', () => {
    const cases: [string, string][] = [
      [`received ${KEY} as your key`, `received ${REDACTED} as your key`],
      ['Authorization: Bearer abc.def-ghi_jkl', `Authorization: Bearer ${REDACTED}`],
      [`Authorization: Bearer ${KEY}`, `Authorization: Bearer ${REDACTED}`],
      ['{"authorization":"Bearer sk-live-abcdefghijklmnopqrstuvwxyz"}', `{"authorization":"Bearer ${REDACTED}"}`],
      ["{'x-api-key': 'anthropic-key-123456'}", `{'x-api-key': '${REDACTED}'}`],
      ['OPENAI_API_KEY=whatever123', `OPENAI_API_KEY=${REDACTED}`],
      ['bad key sk-proj-AbCdEfGhIjKlMnOpQrStUv123 given', `bad key ${REDACTED} given`],
      ['key AIzaSyA1234567890abcdefghijklmnopqrstuv x', `key ${REDACTED} x`],
      [
        'GET https://generativelanguage.googleapis.com/v1/models?key=AIzaXYZ&alt=json',
        `GET https://generativelanguage.googleapis.com/v1/models?key=${REDACTED}&alt=json`,
      ],
      ['connect postgres://pau:pw@127.0.0.1:5/pau failed', 'connect postgres://pau:***@127.0.0.1:5/pau failed'],
    ];
    for (const [text, want] of cases) expect(redact(text, [KEY])).toBe(want);
    // Ordinary provider messages pass unchanged.
    for (const text of [
      '429 Rate limit reached for gpt-4o. Please try again in 20s.',
      "400 Invalid value for 'max_tokens': must be positive.",
      'You must provide an API key in an Authorization header using Bearer auth',
    ]) {
      expect(redact(text, [KEY])).toBe(text);
    }
  });
});

/** A fake OpenAI-compatible provider whose errors echo the request's headers, as some proxies do. */
function fakeProvider() {
  const seenAuth: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      seenAuth.push(String(req.headers.authorization));
      const model = (JSON.parse(body) as { model: string }).model;
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (model === 'echo-401')
        return json(401, { error: { message: `Incorrect API key. Received Authorization: ${req.headers.authorization}`, type: 'invalid_request_error' } });
      if (model === 'echo-500') return json(500, { error: { code: 'upstream_failed', received_headers: req.headers } });
      if (model === 'echo-400-text') {
        res.writeHead(400, { 'content-type': 'text/plain' });
        return res.end(`bad request; you sent ${JSON.stringify(req.headers)}`);
      }
      return json(200, {
        id: 'chatcmpl-fake',
        object: 'chat.completion',
        created: 0,
        model,
        choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
      });
    });
  });
  return { server, seenAuth };
}

let provider: ReturnType<typeof fakeProvider>;
let baseUrl: string;

// The provider and the models file exist before the stack's workers start (the registry is read once).
beforeAll(async () => {
  provider = fakeProvider();
  await new Promise<void>((resolve) => provider.server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(provider.server.address() as AddressInfo).port}/v1`;
  const entry = (model: string) => ({ baseUrl, model, apiKeyEnv: KEY_ENV, maxConcurrency: 2, timeoutMs: 10_000 });
  const modelsFile = path.join(process.env.PAU_STATE_DIR!, 'leaky.models.json');
  fs.writeFileSync(
    modelsFile,
    JSON.stringify({
      models: { 'leaky-401': entry('echo-401'), 'leaky-500': entry('echo-500'), 'leaky-400': entry('echo-400-text'), 'leaky-ok': entry('ok') },
    }),
  );
  // Read once, lazily, by the registry in this test process (and its in-process workers).
  process.env.PAU_MODELS_FILE = modelsFile;
  process.env[KEY_ENV] = KEY;
});
const stack = useStack({ workers: ['pau', 'pau-sandbox'], setup: ({ db }) => insertFixtureMethods(db, 'fixture-redaction', [ADD]) });
afterAll(async () => {
  await closeSlotPool();
  await new Promise((resolve) => provider?.server.close(resolve));
});

const callKey = () => `redaction-test#${crypto.randomBytes(4).toString('hex')}`;
const deps = () => ({ db: () => stack.db, endpoints: hostEndpoints });
const databasePassword = () => decodeURIComponent(new URL(process.env.DATABASE_URL!).password);

describe('provider API keys', () => {
  it('the fake provider really echoes the key: unredacted, the SDK error holds it', async () => {
    const sdk = new OpenAI({ baseURL: baseUrl, apiKey: KEY, maxRetries: 0 });
    const raw = await sdk.chat.completions.create({ model: 'echo-401', messages: [{ role: 'user', content: 'hi' }] }).catch((e: Error) => e);
    expect(String((raw as Error).message)).toContain(KEY);
    // and a key of a well-known format is caught by pattern even when the caller names no key
    const f = toFailure(
      OpenAI.APIError.generate(401, { message: 'got Authorization: Bearer sk-abcdefghijklmnopqrstuvwx' }, undefined, new Headers()),
      'm',
    ) as ApplicationFailure;
    expect(f.message).not.toContain('sk-abcdefghijklmnopqrstuvwx');
  });

  it.each([
    ['leaky-401', 'LlmAuthError', true],
    ['leaky-500', 'LlmServerError', false],
    ['leaky-400', 'LlmInvalidRequest', true],
  ])('%s: the raised failure (message, stack, cause) has the echoed key redacted', async (model, type, nonRetryable) => {
    const before = provider.seenAuth.length;
    const err = await chat({ model, messages: [{ role: 'user', content: 'hi' }], callKey: callKey() }, deps()).catch((e: unknown) => e);
    expect(provider.seenAuth.slice(before)).toEqual([`Bearer ${KEY}`]); // the key was sent, and echoed back
    expect(err).toBeInstanceOf(ApplicationFailure);
    const f = err as ApplicationFailure;
    expect([f.type, f.nonRetryable]).toEqual([type, nonRetryable]);
    expect(f.message).toContain(`Bearer ${REDACTED}`);
    expect(f.message).not.toContain(`${REDACTED}]`);
    const everything = [f.message, f.stack, JSON.stringify(f), f.cause?.message, f.cause?.stack].join('\n');
    expect(everything).not.toContain(KEY);
  });

  it('a successful call: the ledger row (request and response) holds no key and no Authorization header', async () => {
    const before = provider.seenAuth.length;
    const out = await chat({ model: 'leaky-ok', messages: [{ role: 'user', content: 'hi' }], callKey: callKey(), params: { temperature: 0, seed: 7 } }, deps());
    expect(out.message.content).toBe('hello');
    expect(provider.seenAuth.slice(before)).toEqual([`Bearer ${KEY}`]);
    const [row] = await stack.db.select().from(llmCalls).where(sql`${llmCalls.requestHash} = ${out.requestHash}`);
    expect(row).toBeDefined();
    const stored = JSON.stringify([row!.request, row!.response]);
    expect(stored).toContain('"hi"');
    expect(stored).not.toContain(KEY);
    expect(stored.toLowerCase()).not.toContain('authorization');
  });

  it('an episode on that provider: no key or database password in the workflow history (inputs included) or in any row of Postgres', async () => {
    const runId = `redaction-${Date.now().toString(36)}`;
    const out = await runEpisode(stack.client, stack.db, ADD.id, 'leaky-401', 'interactive', { runId });
    expect(out.status).toBe('failed');
    expect(out.error).toMatch(/LlmAuthError/);
    expect(out.error).toContain(REDACTED);
    const raw = await stack.client.workflow.getHandle(episodeWorkflowId(runId, ADD.id, 'leaky-401', 'interactive', 0)).fetchHistory();
    const history = JSON.stringify(raw);
    expect(history).toContain(REDACTED); // the failure is recorded (its message is not a payload), redacted
    // Payloads are encrypted (config/payloadCodec.ts): look in their decrypted form as well.
    const decoded = await decodedHistoryText(raw);
    expect(decoded).toContain('leaky-401'); // the input names the model
    expect(decoded).toContain(ADD.id);
    for (const secret of [KEY, databasePassword()]) {
      expect(history).not.toContain(secret);
      expect(decoded).not.toContain(secret);
    }
    const tables = await stack.dbh.pool.query<{ table_name: string }>(
      `select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`,
    );
    expect(tables.rows.length).toBeGreaterThan(5);
    for (const { table_name } of tables.rows) {
      for (const secret of [KEY, databasePassword()]) {
        const hits = await stack.dbh.pool.query<{ n: number }>(`select count(*)::int as n from "${table_name}" t where t::text like '%' || $1 || '%'`, [
          secret,
        ]);
        expect(hits.rows[0]!.n, `${table_name} holds a secret`).toBe(0);
      }
    }
    const episodes = await stack.dbh.pool.query<{ error: string }>(`select error from episodes where run_id = $1`, [runId]);
    expect(episodes.rows[0]?.error).toContain(REDACTED);
  });
});
