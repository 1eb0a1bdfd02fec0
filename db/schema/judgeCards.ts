// Judge cards (domain/judge/card.ts): one row per (judge, coder, their sent params, prompt version, dataset
// split, methods), keyed by a hash of that key. Per-method rows accumulate in `rows` while the card's
// workflow runs; `card` holds the finished card. Reports and `npm start` read the newest completed card
// of a judge to qualify (or not) the scores they show.
import { boolean, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import type { CardMethodRow, JudgeCard } from '../../domain/judge/card';

export const judgeCardStatuses = ['running', 'completed', 'failed'] as const;

export const judgeCards = pgTable(
  'judge_cards',
  {
    /** sha256 of the canonical key (activities/judge/card.ts cardKeyOf). */
    cardKey: text('card_key').primaryKey(),
    judgeModel: text('judge_model').notNull(),
    coderModel: text('coder_model').notNull(),
    judgeParams: jsonb('judge_params').$type<Record<string, unknown>>().notNull(),
    coderParams: jsonb('coder_params').$type<Record<string, unknown>>().notNull(),
    promptVersion: text('prompt_version').notNull(),
    dataset: text('dataset').notNull(),
    split: text('split').notNull(),
    status: text('status', { enum: judgeCardStatuses }).notNull().default('running'),
    /** Per-method rows by method id, written as each method finishes. */
    rows: jsonb('rows').$type<Record<string, CardMethodRow>>().notNull().default({}),
    card: jsonb('card').$type<JudgeCard>(),
    judgeQualified: boolean('judge_qualified'),
    coderQualified: boolean('coder_qualified'),
    workflowId: text('workflow_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [index('judge_cards_models_idx').on(t.judgeModel, t.coderModel, t.dataset)],
);
