// Critic cards (domain/training/criticCard.ts): one row per (critic, its sent params, critic prompt version,
// dataset split, benchmark run or any), keyed by a hash of that key. Per-episode rows accumulate in `episodes`
// while the card's workflow runs; `card` holds the finished card. GRPO reports read the newest completed card
// of their critic.
import { boolean, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import type { CriticCard, CriticCardEpisode } from '../../domain/training/criticCard';
import { judgeCardStatuses } from './judgeCards';

export const criticCards = pgTable(
  'critic_cards',
  {
    /** sha256 of the canonical key (activities/training/criticCard.ts). */
    cardKey: text('card_key').primaryKey(),
    criticModel: text('critic_model').notNull(),
    criticParams: jsonb('critic_params').$type<Record<string, unknown>>().notNull(),
    promptVersion: text('prompt_version').notNull(),
    dataset: text('dataset').notNull(),
    split: text('split').notNull(),
    /** The benchmark run the episodes come from; null: any benchmark run on the split. */
    runId: text('run_id'),
    status: text('status', { enum: judgeCardStatuses }).notNull().default('running'),
    /** Per-episode rows by episode id, written as each episode is rated. */
    episodes: jsonb('episodes').$type<Record<string, CriticCardEpisode>>().notNull().default({}),
    card: jsonb('card').$type<CriticCard>(),
    qualified: boolean('qualified'),
    workflowId: text('workflow_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [index('critic_cards_model_idx').on(t.criticModel, t.dataset)],
);
