// One chat completion through the `openai` package, with the llm_calls cache/ledger and the cross-worker
// concurrency cap. Used by the activities that build their prompts from Postgres (the episode turn, the
// judge), so every model call in the project goes through here.
import { setTimeout as sleep } from 'node:timers/promises';
import { linkedAbort } from '../../domain/llm/linkedAbort';
import { sql } from 'drizzle-orm';
import OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionMessageParam, ChatCompletionTool, ChatCompletionToolChoiceOption } from 'openai/resources/chat/completions';
import { costUsd, ModelConfigError, type ModelSpec } from '../../config/models';
import type { Endpoint, ModelEndpoints } from './endpoints';
import type { ModelParams } from '../../domain/llm/modelParams';
import type { Db } from '../../db/client';
import { parseJsonb } from '../../db/jsonb';
import { llmCalls } from '../../db/schema/llm';
import { redactKnown } from '../../config/redact';
import { acquireSlot } from './concurrency';
import { LLM_ERROR_TYPES, REFUSED_RETRY_MS, staysRefused, toFailure } from './errors';
import { type ChatSubject, mockExtras, NO_EXTRAS } from '../../platform/models/mock/seam';
import { requestParams } from '../../domain/llm/requestParams';
import { IDEMPOTENCY_HEADER, type RecordedSend, recordReply, recordSend, recordSendError } from './ledger';
import { isLoopbackUrl, sendFailureOf } from '../../domain/llm/sendFailure';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { type TokenLogprob, tokenLogprobSchema } from '../../domain/llm/tokenLogprobs';
import { requestHash } from '../../domain/common/hash';
import { documentSchema } from '../../domain/common/jsonDocument';

// llm_calls.response as stored: the provider's chat completion, checked at what the cache reads back.
const storedCompletionSchema = documentSchema<ChatCompletion>({
  choices: z.array(z.looseObject({ message: z.looseObject({}) })),
});

export interface ChatRequest {
  /** A model name from the registry (config/models.ts). */
  model: string;
  messages: ChatCompletionMessageParam[];
  tools?: ChatCompletionTool[];
  toolChoice?: ChatCompletionToolChoiceOption;
  /** Overrides the model's default params. */
  params?: ModelParams;
  /** Serve from (and fill) the cache even when the params are not deterministic: replaying a run. */
  replay?: boolean;
  /**
   * Ask anew even when the params are deterministic: the request is keyed by its `callKey`, never served
   * from another call's answer (a test–retest repeat), while a retried activity still finds its own.
   */
  fresh?: boolean;
  /**
   * This call's deterministic identity (e.g. `<episodeId>#<step>`). A non-cacheable request is keyed by it,
   * so a retried activity finds the answer it already paid for instead of calling again.
   */
  callKey: string;
  /**
   * What the call is about. Not part of what a model receives: only the scripted mock provider gets it,
   * as a header (platform/models/mock/seam.ts); a real endpoint never does.
   */
  about?: ChatSubject;
}

export interface ChatMessageOut {
  content: string | null;
  toolCalls: { id: string; name: string; arguments: string }[];
  refusal?: string | null;
  /** The model's reasoning, when its server returns it apart from the content (llama.cpp, vLLM, DeepSeek). */
  reasoningContent?: string;
  /** Per generated token, its log-probability and top alternatives, when the request asked (`logprobs`) and the endpoint returned them. */
  logprobs?: TokenLogprob[];
}

export interface ChatResult {
  message: ChatMessageOut;
  finishReason: string | null;
  tokensIn: number;
  tokensOut: number;
  /** USD paid for this call: 0 when answered from the cache. */
  costUsd: number;
  latencyMs: number;
  cached: boolean;
  requestHash: string;
  /** The adapter the answer was sampled with, as the serving side resolved the model: `base` or its sha256 (endpoints.ts). */
  sampledWith: string;
}

export interface ChatDeps {
  db: () => Db;
  /** How model names become specs and endpoints on this host (the workers pass hostEndpoints.ts's). */
  endpoints: ModelEndpoints;
  /** Called while waiting for a slot and during the request (activities heartbeat here). */
  onProgress?: (what: string) => void;
  signal?: AbortSignal;
}

/** Deterministic params make a request cacheable across runs: temperature 0 or a fixed seed. */
export function isCacheable(params: ModelParams, replay = false): boolean {
  return replay || params.temperature === 0 || params.seed !== undefined;
}

const clients = new Map<string, OpenAI>();
function clientFor(baseURL: string, apiKey: string, timeout: number): OpenAI {
  const key = `${baseURL}\u0000${apiKey}\u0000${timeout}`;
  let c = clients.get(key);
  if (!c) {
    // No SDK retries: Temporal retries the activity (with Retry-After as the next delay), visibly.
    c = new OpenAI({ baseURL, apiKey, timeout, maxRetries: 0 });
    clients.set(key, c);
  }
  return c;
}

function toMessageOut(c: ChatCompletion): { message: ChatMessageOut; finishReason: string | null } {
  const choice = c.choices?.[0];
  const m = choice?.message;
  const toolCalls = (m?.tool_calls ?? []).flatMap((t) => (t.type === 'function' ? [{ id: t.id, name: t.function.name, arguments: t.function.arguments }] : []));
  // Not in the OpenAI types: the field reasoning servers (llama.cpp with a reasoning format, vLLM) add.
  const reasoning = (m as { reasoning_content?: unknown } | undefined)?.reasoning_content;
  // An endpoint that ignores `logprobs` sends none; one that sends a malformed list is treated the same way.
  const lp = z.array(tokenLogprobSchema).safeParse(choice?.logprobs?.content);
  return {
    message: {
      content: m?.content ?? null,
      toolCalls,
      refusal: m?.refusal ?? null,
      ...(typeof reasoning === 'string' && reasoning !== '' ? { reasoningContent: reasoning } : {}),
      ...(lp.success && lp.data.length > 0 ? { logprobs: lp.data } : {}),
    },
    finishReason: choice?.finish_reason ?? null,
  };
}

/** How long a request waits, inside its activity, for the project's own server to load its model. */
export const LOADING_WAIT_MS = 120_000;
const LOADING_POLL_MS = 1_000;

/** llama.cpp's (and the scripted mock's `loading`) answer while a server loads its model: 503 "Loading model". */
function isLoadingModel(err: unknown): boolean {
  return err instanceof OpenAI.APIError && err.status === 503 && /loading model/i.test(err.message);
}

/**
 * The request, sent again while the project's own server answers that it is loading its model (a restart
 * with new settings: the judge given more threads): an expected wait, said in the activity's progress, not a
 * failed attempt with a warning per queued request. Past LOADING_WAIT_MS, or from an endpoint not the
 * project's, the 503 fails the attempt as any server error does.
 */
async function waitingOutALoad(spec: ModelSpec, create: () => Promise<ChatCompletion>, deps: ChatDeps): Promise<ChatCompletion> {
  const own = spec.provider === 'local' || spec.provider === 'vllm' || spec.provider === 'mock';
  const until = Date.now() + LOADING_WAIT_MS;
  for (;;) {
    try {
      return await create();
    } catch (err) {
      if (!own || !isLoadingModel(err) || Date.now() >= until) throw err;
      deps.onProgress?.(`model ${spec.name}: its server is loading the model`);
      await sleep(LOADING_POLL_MS, undefined, deps.signal ? { signal: deps.signal } : undefined);
    }
  }
}

/**
 * Why an endpoint can never be reached, or null: one the HTTP client will not connect to (a blocked port, an
 * unknown scheme, a URL that does not parse), any provider; or, for an API endpoint of the registry (provider
 * `openai`) on this machine, a port still refused after a few quick tries (staysRefused): no server of the
 * project's will start there. The project's own servers (mock, local, vLLM) are restarted, so a refusal from
 * them stays an outage, waited out.
 */
async function neverReachable(spec: ModelSpec, endpoint: Endpoint, err: unknown, signal?: AbortSignal): Promise<string | null> {
  const f = sendFailureOf(err);
  const fix = `fix the baseUrl of model ${spec.name} in the models file (pau.models.json or PAU_MODELS_FILE; docs/models.md)`;
  if (f?.kind === 'neverConnects') return `model ${spec.name}: its endpoint ${endpoint.baseURL} can never be reached: ${f.reason}; ${fix}`;
  if (f?.kind !== 'notSent' || !f.refused || spec.provider !== 'openai' || !isLoopbackUrl(endpoint.baseURL)) return null;
  if (!(await staysRefused(endpoint.baseURL, signal))) return null;
  const tries = REFUSED_RETRY_MS.length + 1;
  const seconds = REFUSED_RETRY_MS.reduce((a, b) => a + b, 0) / 1000;
  return `model ${spec.name}: nothing listens at ${endpoint.baseURL} (connection refused ${tries} times over ${seconds} s); start its server, or ${fix}`;
}

/** Nothing listens at the endpoint (as opposed to a timeout or a reset mid-request). */
function isConnectionRefused(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) if ((e as NodeJS.ErrnoException).code === 'ECONNREFUSED') return true;
  return false;
}

function withoutKey<T>(value: T, apiKey: string): T {
  const text = JSON.stringify(value);
  const clean = redactKnown(text, [apiKey]);
  return clean === text ? value : (JSON.parse(clean) as T);
}

export async function chat(req: ChatRequest, deps: ChatDeps): Promise<ChatResult> {
  const { recorded, ...result } = await chatDeferred(req, deps);
  await recorded;
  return result;
}

/**
 * chat() whose last ledger write (the reply, or the cache hit's count) is left to the caller: `recorded`
 * settles when it is in Postgres. The episode turn writes its steps alongside it (one round trip instead
 * of two) and awaits both before it returns. `recorded` never rejects unobserved (a caller that fails
 * before awaiting it does not crash the process); awaiting it still throws the write's error.
 * `deps.before`: a write that must be in Postgres before a request is sent (the turn's observations),
 * run alongside the cache lookup.
 */
export async function chatDeferred(req: ChatRequest, deps: ChatDeps & { before?: Promise<unknown> }): Promise<ChatResult & { recorded: Promise<void> }> {
  const deferred = (p: Promise<unknown>): Promise<void> => {
    const settled = p.then(() => undefined);
    settled.catch(() => undefined);
    return settled;
  };
  const db = deps.db();
  let spec: ModelSpec;
  try {
    spec = await deps.endpoints.resolve(req.model, db);
  } catch (err) {
    if (err instanceof ModelConfigError) throw ApplicationFailure.nonRetryable(err.message, LLM_ERROR_TYPES.config);
    throw err;
  }
  // A cached answer was sampled with the same adapter: the endpoint's identity, in the hash, names it.
  const sampledWith = deps.endpoints.sampledWith(spec);
  const params: ModelParams = requestParams(spec, req.params);
  const body = {
    model: spec.model,
    messages: req.messages,
    ...(req.tools && req.tools.length > 0 ? { tools: req.tools, ...(req.toolChoice ? { tool_choice: req.toolChoice } : {}) } : {}),
    ...params,
  };
  const cacheable = isCacheable(params, req.replay);
  const extras = spec.provider === 'mock' ? mockExtras(req.about) : NO_EXTRAS;
  const hash = requestHash({
    endpoint: deps.endpoints.identity(spec),
    body,
    ...extras.hashFields,
    ...(cacheable && !req.fresh ? {} : { callKey: req.callKey }),
  });

  // 1. The cache / the ledger of a call already paid for.
  const [[hit]] = await Promise.all([
    db.select().from(llmCalls).where(sql`${llmCalls.requestHash} = ${hash} and ${llmCalls.response} is not null`).limit(1),
    deps.before,
  ]);
  if (hit) {
    const recorded = deferred(
      db
        .update(llmCalls)
        .set({ cacheHits: sql`${llmCalls.cacheHits} + 1` })
        .where(sql`${llmCalls.requestHash} = ${hash}`),
    );
    const { message, finishReason } = toMessageOut(parseJsonb(storedCompletionSchema, hit.response, { table: 'llm_calls', column: 'response', row: hash }));
    return {
      message,
      finishReason,
      tokensIn: hit.tokensIn,
      tokensOut: hit.tokensOut,
      costUsd: 0,
      latencyMs: 0,
      cached: true,
      requestHash: hash,
      sampledWith,
      recorded,
    };
  }

  // 2. A slot of this model's cross-worker concurrency cap, then the request.
  let endpoint: Endpoint;
  try {
    endpoint = await deps.endpoints.connect(spec, deps.onProgress);
  } catch (err) {
    if (err instanceof ModelConfigError) throw ApplicationFailure.nonRetryable(err.message, LLM_ERROR_TYPES.config);
    throw err;
  }
  const slot = await acquireSlot(spec.name, spec.maxConcurrency, { signal: deps.signal, onWait: () => deps.onProgress?.('waiting for a model slot') });
  // 3. The ledger row before the request goes out (a send lost in a crash is then visible when resent).
  // The key travels in a header, never in the body; should a body or an answer hold it anyway (a key
  // pasted into params, a proxy echoing it), it is replaced before anything is stored.
  const request = withoutKey(body, endpoint.apiKey);
  let send: RecordedSend;
  try {
    send = await recordSend(db, { requestHash: hash, model: spec.name, request, callKey: req.callKey });
  } catch (err) {
    await slot.release();
    throw err;
  }
  const started = Date.now();
  let completion: ChatCompletion;
  const ticker = deps.onProgress ? setInterval(() => deps.onProgress?.('waiting for the model'), 5_000) : undefined;
  // A signal of its own per request: the SDK leaves a listener on the signal it is given, and one activity
  // making many requests (a card's rungs) would pile them onto the activity's cancellation signal.
  const call = deps.signal ? linkedAbort(deps.signal) : undefined;
  try {
    const create = () =>
      clientFor(endpoint.baseURL, endpoint.apiKey, spec.timeoutMs).chat.completions.create(body as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming, {
        // The SDK's own idempotencyKey option is inert for this client (no idempotency header configured),
        // so the header is set directly.
        headers: { ...extras.headers, [IDEMPOTENCY_HEADER]: send.key },
        ...(call ? { signal: call.signal } : {}),
      }) as Promise<ChatCompletion>;
    completion = await waitingOutALoad(spec, create, deps);
  } catch (err) {
    deps.endpoints.lost(spec);
    await recordSendError(db, { requestHash: hash, previous: send.previous }, err, toFailure(err, spec.name, [endpoint.apiKey]).message).catch(() => undefined);
    // An endpoint that can never be reached fails now, non-retryably, saying why (not an outage waited out for hours).
    const unreachable = await neverReachable(spec, endpoint, err, deps.signal);
    if (unreachable) throw ApplicationFailure.nonRetryable(redactKnown(unreachable, [endpoint.apiKey]), LLM_ERROR_TYPES.unreachable);
    // Retryable like any provider outage (the episode waits for it, saying so): a stack whose mock server
    // restarts continues by itself; the message says how to start one.
    if (spec.provider === 'mock' && isConnectionRefused(err)) {
      throw ApplicationFailure.create({
        message:
          `model ${spec.name} is the scripted mock model, and no mock model server answers at ${endpoint.baseURL}: ` +
          '`npm run pau -- stack up` starts one (on PAU_MOCK_LLM_PORT), or set PAU_MOCK_LLM_URL to a running `npm run pau -- mock-llm`',
        type: LLM_ERROR_TYPES.connection,
      });
    }
    throw toFailure(err, spec.name, [endpoint.apiKey]);
  } finally {
    if (ticker) clearInterval(ticker);
    call?.dispose();
    await slot.release();
  }
  const latencyMs = Date.now() - started;
  const tokensIn = completion.usage?.prompt_tokens ?? 0;
  const tokensOut = completion.usage?.completion_tokens ?? 0;
  const cost = costUsd(spec, tokensIn, tokensOut);

  // 4. The reply completes the ledger row (the cache entry for the next identical request).
  const response = withoutKey(completion, endpoint.apiKey);
  const recorded = deferred(recordReply(db, { requestHash: hash, model: spec.name, request, response, tokensIn, tokensOut, costUsd: cost, latencyMs }));
  const { message, finishReason } = toMessageOut(response);
  return { message, finishReason, tokensIn, tokensOut, costUsd: cost, latencyMs, cached: false, requestHash: hash, sampledWith, recorded };
}
