// SFT data, checkpoints and GRPO training state.
import { doublePrecision, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { AnyDocument } from '../../domain/common/jsonDocument';
import type { ExecStepRating } from '../../domain/training/execCritic';
import type { SftBuildConfig, SftBuildSummary } from '../../domain/training/sftData';
import { runs } from './runs';

/** One SFT data set (`pau sft build --name NAME`): who made it, from which benchmark run, and its build summary. */
export const sftDatasets = pgTable('sft_datasets', {
  name: text('name').primaryKey(),
  teacher: text('teacher').notNull(),
  judgeModel: text('judge_model').notNull(),
  /** The benchmark run whose judged episodes the examples come from. */
  runId: text('run_id')
    .notNull()
    .references(() => runs.id, { onDelete: 'cascade' }),
  /** The thresholds and selection (SftBuildConfig). */
  config: jsonb('config').$type<SftBuildConfig>().notNull(),
  /** Kept / dropped by reason, per source, tokens (SftBuildSummary). */
  summary: jsonb('summary').$type<SftBuildSummary>(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** A kept teacher episode as a chat-format training example, with its provenance. */
export const sftExamples = pgTable(
  'sft_examples',
  {
    /** The benchmark run that produced the episode. */
    runId: text('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    episodeId: text('episode_id').notNull(),
    /** The data set (sft_datasets.name) this example belongs to. */
    dataset: text('dataset').notNull(),
    methodId: text('method_id').notNull(),
    source: text('source').notNull(),
    setting: text('setting').notNull(),
    teacher: text('teacher').notNull(),
    judgeModel: text('judge_model').notNull(),
    /** The OpenAI chat messages exactly as the agent saw them, ending with its final assistant turn. */
    messages: jsonb('messages').$type<ChatCompletionMessageParam[]>().notNull(),
    /** The tool definitions the agent was offered (OpenAI `tools`), or null. */
    tools: jsonb('tools').$type<ChatCompletionTool[]>(),
    score: integer('score'),
    codeMatch: doublePrecision('code_match'),
    /** The episode's tokens in + out as the teacher's endpoint counted them. */
    tokens: integer('tokens').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  // One benchmark run per data set (its id is derived from the name), so (run, episode) is unique per set.
  (t) => [primaryKey({ columns: [t.runId, t.episodeId] }), index('sft_examples_dataset_idx').on(t.dataset)],
);

export const checkpoints = pgTable(
  'checkpoints',
  {
    /** Deterministic from the training job (domain/training/checkpointIds.ts); `ckpt:<id>` names it as a model. */
    id: text('id').primaryKey(),
    runId: text('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    epoch: integer('epoch').notNull(),
    /** The trainer job that produced it: one checkpoint row per job, however often the registration retries. */
    jobId: text('job_id'),
    /** A registry model name (`local/smollm2-135m`), the base the adapter applies to. */
    baseModel: text('base_model'),
    /** The checkpoint this one continued from (GRPO epochs), or null. */
    parentId: text('parent_id'),
    /** The checkpoint directory (peft adapter + DONE). */
    path: text('path').notNull(),
    /** The adapter file (adapter_model.safetensors) and its sha256 from the trainer's done event. */
    adapterPath: text('adapter_path'),
    adapterSha256: text('adapter_sha256'),
    /** The adapter converted for llama.cpp (`--lora`), and its sha256. */
    ggufPath: text('gguf_path'),
    ggufSha256: text('gguf_sha256'),
    /** The training spec the job ran with. */
    config: jsonb('config').$type<AnyDocument>(),
    metrics: jsonb('metrics').$type<AnyDocument>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('checkpoints_job_uq').on(t.jobId)],
);

export const trainingEpochs = pgTable(
  'training_epochs',
  {
    runId: text('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    epoch: integer('epoch').notNull(),
    status: text('status').notNull().default('pending'),
    metrics: jsonb('metrics').$type<AnyDocument>(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.epoch] })],
);

/**
 * The execution critic's step ratings (domain/training/execCritic.ts), by step key: a hash of the method's
 * code, the alternatives' recipe, the earlier calls and the step's calls. A rollout rated again (a retry, a
 * second run, a critic card on the same rollouts) reads them instead of running the sandbox.
 */
export const execCriticSteps = pgTable(
  'exec_critic_steps',
  {
    stepKey: text('step_key').primaryKey(),
    methodId: text('method_id').notNull(),
    version: text('version').notNull(),
    rating: jsonb('rating').$type<ExecStepRating>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('exec_critic_steps_method_idx').on(t.methodId)],
);
