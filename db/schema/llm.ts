// Every model call: a cache (keyed by the hash of the full request) and a ledger of tokens, cost, latency.
import { doublePrecision, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

export const llmCalls = pgTable(
  'llm_calls',
  {
    requestHash: text('request_hash').primaryKey(),
    model: text('model').notNull(),
    request: jsonb('request').notNull(),
    response: jsonb('response'),
    tokensIn: integer('tokens_in').notNull().default(0),
    tokensOut: integer('tokens_out').notNull().default(0),
    costUsd: doublePrecision('cost_usd').notNull().default(0),
    latencyMs: integer('latency_ms').notNull().default(0),
    /** How many times this cached answer was served instead of a new call. */
    cacheHits: integer('cache_hits').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('llm_calls_model_created_idx').on(t.model, t.createdAt)],
);
