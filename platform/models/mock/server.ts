// The scripted model server: an OpenAI-compatible HTTP endpoint (POST /v1/chat/completions, GET
// /v1/models) on loopback, behind the built-in `mock-*` models. The policy is the request's `model`;
// the method it is about comes from the X-Pau-Method-Id header (sent by the LLM activity for mock models
// only, platform/models/mock/seam.ts) and is read from Postgres (probe inputs, gold description,
// signature). Not a language model. It runs as its own process (`pau mock-llm`, started by `stack up`) or
// inside a test harness; never inside a worker. Like the local llama.cpp servers it answers only requests
// that bear the `model-server-key` secret (another user of the machine would read gold descriptions and
// method code through it).
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { MOCK_POLICIES, type MockPolicy } from '../../../config/models';
import { bearsSecret, readOrCreateSecret } from '../../../config/secrets';
import { getDb, type Db } from '../../../db/client';
import { methods } from '../../../db/schema/datasets';
import { scriptedDescriberReply } from '../../../domain/describe/scriptedDescriber';
import { scriptedJudgeOrCoderReply } from '../../../domain/judge/scriptedJudge';
import { scriptedCriticReply } from '../../../domain/training/scriptedCritic';
import { MOCK_FINGERPRINT, MOCK_MARK, reply, type MockMethod, type MockReply, type MockRequest } from './policies';
import { MOCK_METHOD_HEADER } from './seam';

export interface MockServerStats {
  requests: number;
  byPolicy: Record<string, number>;
  errors: number;
}

export interface MockServer {
  url: string;
  port: number;
  stats: MockServerStats;
  /** Lets the process exit while the server is up. */
  unref(): void;
  close(): Promise<void>;
}

export interface MockServerOptions {
  port?: number;
  host?: string;
  /** How the server finds a method; defaults to the `methods` table. */
  lookup?: (methodId: string) => Promise<MockMethod | undefined>;
  /** Artificial latency per reply (ms), to demo the progress bar; 0 by default. */
  latencyMs?: number;
  /** The API key requests must bear (`Authorization: Bearer`); default: the `model-server-key` secret. */
  apiKey?: string;
}

/** Methods found are kept for a few seconds (a long-lived server sees rebuilt datasets); misses are not kept. */
const LOOKUP_TTL_MS = 10_000;

export function dbMethodLookup(db: () => Db = getDb): (id: string) => Promise<MockMethod | undefined> {
  const cache = new Map<string, { m: MockMethod; at: number }>();
  return async (id) => {
    const hit = cache.get(id);
    if (hit && Date.now() - hit.at < LOOKUP_TTL_MS) return hit.m;
    const [row] = await db()
      .select({
        id: methods.id,
        signature: methods.signature,
        entryPoint: methods.entryPoint,
        probeInputs: methods.probeInputs,
        goldDescription: methods.goldDescription,
        code: methods.code,
      })
      .from(methods)
      .where(eq(methods.id, id))
      .limit(1);
    const m = row ? { ...row, probeInputs: row.probeInputs ?? [] } : undefined;
    if (cache.size > 10_000) cache.clear();
    if (m) cache.set(id, { m, at: Date.now() });
    return m;
  };
}

const approxTokens = (s: string) => Math.max(1, Math.ceil(s.length / 4));

/** How many times the `loading` policy answers 503 Loading model to a request before answering it. */
export const LOADING_ANSWERS = 2;

/**
 * The policies that answer an HTTP error the first `times` times they see a request (by its body), then as
 * the oracle: an endpoint's transient failures, scripted.
 */
const SCRIPTED_FAILURES: Partial<Record<MockPolicy, { times: number; status: number; body: unknown; headers?: Record<string, string> }>> = {
  ratelimit: {
    times: 1,
    status: 429,
    body: { error: { message: `${MOCK_MARK} rate limited (scripted 429; retry after 1 s)`, type: 'rate_limit_error' } },
    headers: { 'retry-after': '1' },
  },
  // llama.cpp's answer while its server loads the model (after a restart with new settings)
  loading: { times: LOADING_ANSWERS, status: 503, body: { error: { code: 503, message: 'Loading model', type: 'unavailable_error' } } },
};

export async function startMockServer(opts: MockServerOptions = {}): Promise<MockServer> {
  const lookup = opts.lookup ?? dbMethodLookup();
  const apiKey = opts.apiKey ?? readOrCreateSecret('model-server-key');
  const stats: MockServerStats = { requests: 0, byPolicy: {}, errors: 0 };
  const failuresSent = new Map<string, number>(); // by policy and request body
  let n = 0;

  const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const data = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(data),
      'x-pau-scripted-mock': 'not-a-real-llm',
      ...headers,
    });
    res.end(data);
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (!bearsSecret(req.headers.authorization, apiKey))
      return send(res, 401, {
        error: { message: `${MOCK_MARK} missing or wrong API key (the model-server-key secret)`, type: 'invalid_request_error', code: 'invalid_api_key' },
      });
    if (req.method === 'GET' && url.pathname.endsWith('/models')) {
      return send(res, 200, { object: 'list', data: MOCK_POLICIES.map((p) => ({ id: p, object: 'model', owned_by: MOCK_MARK })) });
    }
    if (req.method === 'GET' && url.pathname === '/_stats') return send(res, 200, stats);
    if (req.method !== 'POST' || !url.pathname.endsWith('/chat/completions'))
      return send(res, 404, { error: { message: `${MOCK_MARK} no route ${req.method} ${url.pathname}` } });
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: MockRequest;
    try {
      body = JSON.parse(raw) as MockRequest;
    } catch {
      return send(res, 400, { error: { message: `${MOCK_MARK} request body is not JSON`, type: 'invalid_request_error' } });
    }
    stats.requests++;
    const policy = body.model as MockPolicy;
    stats.byPolicy[policy] = (stats.byPolicy[policy] ?? 0) + 1;
    if (!(MOCK_POLICIES as readonly string[]).includes(policy)) {
      return send(res, 404, {
        error: {
          message: `${MOCK_MARK} unknown scripted policy ${JSON.stringify(body.model)}; known: ${MOCK_POLICIES.join(', ')}`,
          type: 'invalid_request_error',
          code: 'model_not_found',
        },
      });
    }
    const failure = SCRIPTED_FAILURES[policy];
    if (failure) {
      const key = `${policy}\u0000${createHash('sha256').update(raw).digest('hex')}`;
      const sent = failuresSent.get(key) ?? 0;
      if (sent < failure.times) {
        failuresSent.set(key, sent + 1);
        return send(res, failure.status, failure.body, failure.headers);
      }
    }
    const methodId = req.headers[MOCK_METHOD_HEADER];
    const method = typeof methodId === 'string' ? await lookup(methodId) : undefined;
    // Judge and code-writer requests (recognised by their system prompts) get the judge's scripted replies.
    const out: MockReply =
      scriptedJudgeOrCoderReply(policy, body.messages, method) ??
      scriptedCriticReply(policy, body.messages) ??
      scriptedDescriberReply(policy, body.messages, method) ??
      reply(policy, body, method);
    if (opts.latencyMs) await new Promise((r) => setTimeout(r, opts.latencyMs));
    if (out.kind === 'http-error') return send(res, out.status, out.body, out.headers);
    const turn = body.messages.filter((m) => m.role === 'assistant').length;
    const toolCalls = out.toolCalls.map((t, i) => ({ id: `call_${turn}_${i}`, type: 'function', function: { name: t.name, arguments: t.arguments } }));
    const completionText = (out.content ?? '') + out.toolCalls.map((t) => t.arguments).join('');
    send(res, 200, {
      id: `chatcmpl-pau-mock-${++n}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: `pau-scripted-mock/${policy}`,
      system_fingerprint: MOCK_FINGERPRINT,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: out.content, refusal: null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
          finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
          logprobs: body.logprobs && out.content ? { content: certainLogprobs(out.content) } : null,
        },
      ],
      usage: { prompt_tokens: approxTokens(JSON.stringify(body.messages)), completion_tokens: approxTokens(completionText), total_tokens: 0 },
    });
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      stats.errors++;
      if (!res.headersSent) send(res, 500, { error: { message: `${MOCK_MARK} server error: ${(err as Error).message}`, type: 'server_error' } });
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  return {
    url: `http://${address}:${port}/v1`,
    port,
    stats,
    unref: () => server.unref(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Logprobs of a scripted reply: its words, digits and punctuation as tokens, each certain (logprob 0, itself
 * its only alternative). A scripted judge is deterministic, so its score distribution is its digit.
 */
export function certainLogprobs(text: string): { token: string; logprob: number; top_logprobs: { token: string; logprob: number }[] }[] {
  return (text.match(/\s+|[A-Za-z_]+|\d|[^\sA-Za-z_\d]/g) ?? []).map((token) => ({ token, logprob: 0, top_logprobs: [{ token, logprob: 0 }] }));
}
