// Every model call: a cache (keyed by the hash of the full request) and a ledger of tokens, cost, latency.
// The row is written before the request is sent (state `sent`) and completed on reply, so a request sent
// again after a crash (no outcome recorded) is counted in `resent`: work possibly paid twice.
import { doublePrecision, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import type { AnyDocument } from '../../domain/common/jsonDocument';

export const llmCallStates = ['sent', 'completed', 'failed'] as const;

export const llmCalls = pgTable(
  'llm_calls',
  {
    requestHash: text('request_hash').primaryKey(),
    model: text('model').notNull(),
    request: jsonb('request').$type<AnyDocument>().notNull(),
    response: jsonb('response').$type<ChatCompletion>(),
    tokensIn: integer('tokens_in').notNull().default(0),
    tokensOut: integer('tokens_out').notNull().default(0),
    costUsd: doublePrecision('cost_usd').notNull().default(0),
    latencyMs: integer('latency_ms').notNull().default(0),
    /** How many times this cached answer was served instead of a new call. */
    cacheHits: integer('cache_hits').notNull().default(0),
    /** `sent` (in flight, or lost in a crash), `completed` (reply stored), `failed` (an error reply: not paid). */
    state: text('state', { enum: llmCallStates }).notNull().default('completed'),
    /** The caller's key of this call (`<episodeId>#<step>`), also sent to providers as an idempotency key. */
    callKey: text('call_key'),
    /** Times the request was sent. */
    sends: integer('sends').notNull().default(1),
    /** Sends that followed a send with no recorded outcome (a crash mid-request): possibly paid twice. */
    resent: integer('resent').notNull().default(0),
    error: text('error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('llm_calls_model_created_idx').on(t.model, t.createdAt)],
);
