// Critic cards (domain/training/criticCard.ts): one row per (critic, its sent params, critic prompt version,
// dataset split, benchmark run or any), keyed by a hash of that key. Per-episode rows accumulate in `episodes`
// while the card's workflow runs; `card` holds the finished card. GRPO reports read the newest completed card
// of their critic.
import { boolean, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import type { CriticCard, CriticCardEpisode } from '../../domain/training/criticCard';
import { CRITIC_FORMATS } from '../../domain/training/criticPrompt';
import type { OnPolicyCriticCard, OnPolicyRolloutRatings } from '../../domain/training/onPolicyCard';
import { judgeCardStatuses } from './judgeCards';
import { runs } from './runs';

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

// On-policy critic cards (domain/training/onPolicyCard.ts): one row per (critic, its sent params, its version,
// the run its rollouts are recorded under), keyed by a hash of that key. The critic's ratings of each rollout
// accumulate in `rollouts` while its pass runs (a rerun rates only the rest); `card` holds its finished card.
// GRPO reports read the newest completed one of their critic, format, policy and dataset.
export const onPolicyCriticCards = pgTable(
  'on_policy_critic_cards',
  {
    /** sha256 of the canonical key (activities/training/onPolicyCard.ts). */
    cardKey: text('card_key').primaryKey(),
    /** `exec`, `free-rule` or the critic model. */
    critic: text('critic').notNull(),
    /** A model critic's prompt format; null for exec and the free rule. */
    format: text('format', { enum: CRITIC_FORMATS }),
    criticParams: jsonb('critic_params').$type<Record<string, unknown>>().notNull(),
    promptVersion: text('prompt_version').notNull(),
    /** The policy whose rollouts are rated. */
    policy: text('policy').notNull(),
    dataset: text('dataset').notNull(),
    split: text('split').notNull(),
    /** The run (kind critic-card) the rollouts are recorded under. */
    runId: text('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    status: text('status', { enum: judgeCardStatuses }).notNull().default('running'),
    /** Per-rollout ratings by episode id, written as each rollout is rated. */
    rollouts: jsonb('rollouts').$type<Record<string, OnPolicyRolloutRatings>>().notNull().default({}),
    card: jsonb('card').$type<OnPolicyCriticCard>(),
    qualified: boolean('qualified'),
    workflowId: text('workflow_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [index('on_policy_critic_cards_critic_idx').on(t.critic, t.dataset, t.policy)],
);
