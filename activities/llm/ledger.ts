// The llm_calls ledger around one send: the row is written before the request goes out (state `sent`) and
// completed on the reply, so a request sent again after a crash (its earlier send has no outcome) is
// counted in `resent`: work possibly paid twice, shown by `runs show` and the report.
import OpenAI from 'openai';
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { llmCalls } from '../../db/schema/llm';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import type { AnyDocument } from '../../domain/common/jsonDocument';

/** The header a provider reads to recognise a request it has already processed (OpenAI-compatible APIs). */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/**
 * The idempotency key of one send: the ledger row (request hash) and the how-manieth fresh send it is.
 * A send again after one with no recorded outcome (a crash, a timeout) carries the same key, so a provider
 * that honours it answers from the first send instead of billing again; a send after an answered error
 * (a 5xx, a 429) gets a new key, since the provider may have stored that error under the old one.
 */
export function idempotencyKey(requestHash: string, sends: number, resent: number): string {
  return `pau-${requestHash}-${sends - resent}`;
}

/** Writes (or counts) the send; returns the key the request carries. */
export async function recordSend(db: Db, row: { requestHash: string; model: string; request: AnyDocument; callKey: string }): Promise<string> {
  const [r] = await db
    .insert(llmCalls)
    .values({ ...row, state: 'sent', sends: 1, resent: 0 })
    .onConflictDoUpdate({
      target: llmCalls.requestHash,
      set: {
        sends: sql`${llmCalls.sends} + 1`,
        // The previous send has no recorded outcome: it may have been processed (and billed) already.
        resent: sql`${llmCalls.resent} + case when ${llmCalls.state} = 'sent' then 1 else 0 end`,
        state: 'sent',
        callKey: row.callKey,
        error: null,
      },
    })
    .returning({ sends: llmCalls.sends, resent: llmCalls.resent });
  return idempotencyKey(row.requestHash, r?.sends ?? 1, r?.resent ?? 0);
}

/** The reply: the row becomes the cache entry for the next identical request. */
export async function recordReply(
  db: Db,
  row: {
    requestHash: string;
    model: string;
    request: AnyDocument;
    response: ChatCompletion;
    tokensIn: number;
    tokensOut: number;
    costUsd: number;
    latencyMs: number;
  },
): Promise<void> {
  const { requestHash, model, request, ...outcome } = row;
  await db
    .insert(llmCalls)
    .values({ ...row, state: 'completed' })
    .onConflictDoUpdate({ target: llmCalls.requestHash, set: { ...outcome, state: 'completed', error: null } });
}

/**
 * A send that ended in an error. An error reply (an HTTP status) or a refused connection means the request
 * was not processed: state `failed`. A timeout or an abort leaves it `sent`: the provider may have answered.
 */
/** `message`: the redacted text (providers echo keys in error bodies; the raw error is never stored). */
export async function recordSendError(db: Db, requestHash: string, err: unknown, message: string): Promise<void> {
  const notProcessed =
    (err instanceof OpenAI.APIError && err.status !== undefined) ||
    (err instanceof OpenAI.APIConnectionError && !(err instanceof OpenAI.APIConnectionTimeoutError) && refused(err));
  if (!notProcessed) return;
  await db
    .update(llmCalls)
    .set({ state: 'failed', error: message.slice(0, 500) })
    .where(sql`${llmCalls.requestHash} = ${requestHash} and ${llmCalls.state} = 'sent'`);
}

function refused(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) if ((e as NodeJS.ErrnoException).code === 'ECONNREFUSED') return true;
  return false;
}
