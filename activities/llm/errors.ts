// How a failed model call becomes a Temporal failure: retryable (429, 5xx, timeouts, connection errors),
// with the provider's Retry-After as the next retry delay; non-retryable with a type for what retrying
// cannot fix (bad key, no permission, unknown model, a request the endpoint rejects). Every message is
// redacted first: providers echo keys and headers in error bodies, and a failure lands in Temporal's
// history, the worker's log and the episode's row in Postgres.
import net from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import OpenAI from 'openai';
import { redact } from '../../config/redact';

import { LLM_ERROR_TYPES } from '../../domain/llm/errorTypes';

export { LLM_ERROR_TYPES, NON_RETRYABLE_LLM_ERRORS } from '../../domain/llm/errorTypes';

/** Retry-After (seconds or an HTTP date) or retry-after-ms, in ms; undefined when absent or unreadable. */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const ra = headers.get('retry-after');
  if (!ra) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(ra)) return Math.max(0, Number(ra) * 1000);
  const date = Date.parse(ra);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

const MAX_RETRY_AFTER_MS = 10 * 60_000;

/** `secrets`: the API key(s) the call used, replaced wherever they appear besides the generic patterns. */
export function toFailure(err: unknown, model: string, secrets: readonly (string | undefined)[] = []): Error {
  if (err instanceof ApplicationFailure) return err;
  const where = `model ${model}`;
  const clean = (text: string) => redact(text, secrets);
  if (err instanceof OpenAI.APIConnectionTimeoutError) {
    return ApplicationFailure.create({ message: `${where}: request timed out`, type: LLM_ERROR_TYPES.timeout, cause: redactedError(err, secrets) });
  }
  if (err instanceof OpenAI.APIConnectionError) {
    return ApplicationFailure.create({
      message: clean(`${where}: connection failed: ${err.message}`),
      type: LLM_ERROR_TYPES.connection,
      cause: redactedError(err, secrets),
    });
  }
  if (err instanceof OpenAI.APIError) {
    const status = err.status ?? 0;
    const msg = clean(`${where}: HTTP ${status}: ${err.message}`);
    if (status === 401 || status === 403) return ApplicationFailure.create({ message: msg, type: LLM_ERROR_TYPES.auth, nonRetryable: true });
    if (status === 429 || status >= 500 || status === 408 || status === 409) {
      const delay = retryAfterMs(err.headers as Headers | undefined);
      return ApplicationFailure.create({
        message: msg,
        type: status === 429 ? LLM_ERROR_TYPES.rateLimited : LLM_ERROR_TYPES.server,
        ...(delay !== undefined ? { nextRetryDelay: Math.min(delay, MAX_RETRY_AFTER_MS) } : {}),
      });
    }
    if (status >= 400) return ApplicationFailure.create({ message: msg, type: LLM_ERROR_TYPES.invalidRequest, nonRetryable: true });
  }
  return err instanceof Error ? redactedError(err, secrets) : new Error(clean(String(err)));
}

/** The error itself when nothing in it needs hiding (keeps its class, e.g. a cancellation); else a redacted copy. */
function redactedError(err: Error, secrets: readonly (string | undefined)[]): Error {
  const causeText = err.cause instanceof Error ? `${err.cause.message}\n${err.cause.stack ?? ''}` : '';
  const message = redact(err.message, secrets);
  const stack = redact(err.stack ?? '', secrets);
  if (message === err.message && stack === (err.stack ?? '') && redact(causeText, secrets) === causeText) return err;
  const copy = new Error(message);
  copy.name = err.name;
  copy.stack = stack;
  return copy;
}

// Is anything listening? A few quick TCP connects to an endpoint's host and port, to tell a server that is
// restarting from a port nothing will ever answer on (a model entry pointing at a loopback port with no server).
/** The waits before each further try: 3.5 s in all. */
export const REFUSED_RETRY_MS = [500, 1000, 2000] as const;

/** One TCP connect: `refused`, `open`, or `other` (a timeout, no route: not this question's answer). */
function connectOnce(host: string, port: number, timeoutMs = 1000): Promise<'refused' | 'open' | 'other'> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (r: 'refused' | 'open' | 'other') => {
      socket.removeAllListeners();
      socket.destroy();
      resolve(r);
    };
    socket.setTimeout(timeoutMs, () => done('other'));
    socket.once('connect', () => done('open'));
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code === 'ECONNREFUSED' ? 'refused' : 'other'));
  });
}

/**
 * Whether the URL's port stays refused over REFUSED_RETRY_MS (its first refusal already seen): true when every
 * try is refused; false as soon as one connects or fails otherwise, or when `signal` aborts.
 */
export async function staysRefused(url: string, signal?: AbortSignal, waits: readonly number[] = REFUSED_RETRY_MS): Promise<boolean> {
  const u = new URL(url);
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  for (const ms of waits) {
    await new Promise((r) => setTimeout(r, ms));
    if (signal?.aborted) return false;
    if ((await connectOnce(host, port)) !== 'refused') return false;
  }
  return true;
}
