// How a failed model call becomes a Temporal failure: retryable (429, 5xx, timeouts, connection errors),
// with the provider's Retry-After as the next retry delay; non-retryable with a type for what retrying
// cannot fix (bad key, no permission, unknown model, a request the endpoint rejects). Every message is
// redacted first: providers echo keys and headers in error bodies, and a failure lands in Temporal's
// history, the worker's log and the episode's row in Postgres.
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
