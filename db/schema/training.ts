// SFT data and GRPO training state.
import { integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { runs } from './runs';

export const sftExamples = pgTable(
  'sft_examples',
  {
    runId: text('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    episodeId: text('episode_id').notNull(),
    messages: jsonb('messages').notNull(),
    score: integer('score'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.episodeId] })],
);

export const checkpoints = pgTable('checkpoints', {
  /** Deterministic: `${runId}/epoch-${epoch}`. */
  id: text('id').primaryKey(),
  runId: text('run_id')
    .notNull()
    .references(() => runs.id, { onDelete: 'cascade' }),
  epoch: integer('epoch').notNull(),
  path: text('path').notNull(),
  metrics: jsonb('metrics'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

export const trainingEpochs = pgTable(
  'training_epochs',
  {
    runId: text('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    epoch: integer('epoch').notNull(),
    status: text('status').notNull().default('pending'),
    metrics: jsonb('metrics'),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.epoch] })],
);
