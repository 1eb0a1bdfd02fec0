// The llm_calls ledger around one send: the row is written before the request goes out (state `sent`) and
// completed on the reply, so a request sent again after a crash (its earlier send has no outcome) is
// counted in `resent`: work possibly paid twice, shown by `runs show` and the report. A send counts only when
// bytes left for the endpoint: one whose connection failed first (refused, no such host, a port the client
// will not use) is taken back (domain/llm/sendFailure.ts), so an outage or a dead endpoint is no paid send.
import OpenAI from 'openai';
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { type llmCallStates, llmCalls } from '../../db/schema/llm';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import type { AnyDocument } from '../../domain/common/jsonDocument';
import { sendFailureOf } from '../../domain/llm/sendFailure';

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

/** A send as recorded: the key the request carries, and the row's state before it (null: a new row). */
export interface RecordedSend {
  key: string;
  previous: (typeof llmCallStates)[number] | null;
}

/** Writes (or counts) the send; returns the key the request carries and the state it replaced. */
export async function recordSend(db: Db, row: { requestHash: string; model: string; request: AnyDocument; callKey: string }): Promise<RecordedSend> {
  const [prev] = await db.select({ state: llmCalls.state }).from(llmCalls).where(eq(llmCalls.requestHash, row.requestHash)).limit(1);
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
  return { key: idempotencyKey(row.requestHash, r?.sends ?? 1, r?.resent ?? 0), previous: prev?.state ?? null };
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
 * A send that ended in an error. An error reply (an HTTP status) means the request was not processed: state
 * `failed`. A connection that failed before the request was written sent nothing: the send is taken back, as
 * if never recorded (`sends` - 1, and the `resent` it counted; the state it replaced: an earlier send with no
 * outcome stays `sent`, anything else is `failed`). A timeout, an abort or a reset leaves it `sent`: the
 * provider may have answered. `message`: the redacted text (providers echo keys in error bodies; the raw error
 * is never stored).
 */
export async function recordSendError(db: Db, send: { requestHash: string; previous: RecordedSend['previous'] }, err: unknown, message: string): Promise<void> {
  const answered = err instanceof OpenAI.APIError && !(err instanceof OpenAI.APIConnectionError) && err.status !== undefined;
  const notSent = !answered && !(err instanceof OpenAI.APIConnectionTimeoutError) && sendFailureOf(err) !== null;
  if (!answered && !notSent) return;
  const stillUncertain = notSent && send.previous === 'sent';
  await db
    .update(llmCalls)
    .set({
      state: stillUncertain ? 'sent' : 'failed',
      error: message.slice(0, 500),
      ...(notSent ? { sends: sql`greatest(${llmCalls.sends} - 1, 0)` } : {}),
      ...(stillUncertain ? { resent: sql`greatest(${llmCalls.resent} - 1, 0)` } : {}),
    })
    .where(sql`${llmCalls.requestHash} = ${send.requestHash} and ${llmCalls.state} = 'sent'`);
}
