// Runs (a benchmark, an SFT or GRPO training, a judging pass, a doctor check) and what each produced.
import { sql } from 'drizzle-orm';
import { doublePrecision, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import type { RunConfig, RunSummary } from '../../domain/runs/runDocuments';
import { RUN_KINDS } from '../../domain/runs/runKinds';
import type { StepAgentMessage, StepCall, StepObservation } from '../../domain/episode/stepRecord';
import type { EpisodeDiagnostics } from '../../domain/judge/diagnostics';
import type { ScoreDetail } from '../../domain/judge/scoreDistribution';

export const runKinds = RUN_KINDS;
/** `completed_with_failures`: the run finished, some episodes failed (rerun them with `rerun --run ID --failed`). */
export const runStatuses = ['pending', 'running', 'completed', 'completed_with_failures', 'failed', 'cancelled'] as const;
/** `cancelled`: stopped by a run cancellation (at a turn boundary) or reconciled after the run's workflow was terminated. */
export const episodeStatuses = ['pending', 'running', 'completed', 'failed', 'cancelled'] as const;

export const runs = pgTable(
  'runs',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: runKinds }).notNull(),
    status: text('status', { enum: runStatuses }).notNull().default('pending'),
    /** Per kind (domain/runs/runDocuments.ts): a benchmark's StoredConfig, a GRPO run's GrpoConfig, ...; read with db/runDocuments.ts parseRunConfig. */
    config: jsonb('config').$type<RunConfig>().notNull(),
    workflowId: text('workflow_id'),
    /** Per kind, like config; read with parseRunSummary. */
    summary: jsonb('summary').$type<RunSummary>(),
    error: text('error'),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    /**
     * When a cancellation of the run reached its workflow (cleared when the run runs again). Episodes whose
     * turns run as local activities read it: their workflow task then ends so the cancellation reaches them.
     */
    cancelRequestedAt: timestamp('cancel_requested_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('runs_kind_created_idx').on(t.kind, t.createdAt)],
);

export const episodes = pgTable(
  'episodes',
  {
    /** Deterministic: `${runId}/${methodId}/${model}/${setting}/${sample}`. */
    id: text('id').primaryKey(),
    runId: text('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    methodId: text('method_id').notNull(),
    model: text('model').notNull(),
    setting: text('setting', { enum: ['interactive', 'in-context'] }).notNull(),
    sample: integer('sample').notNull().default(0),
    status: text('status', { enum: episodeStatuses }).notNull().default('pending'),
    finalDescription: text('final_description'),
    endReason: text('end_reason'),
    error: text('error'),
    callsMade: integer('calls_made').notNull().default(0),
    /**
     * Coverage of the original by the observed inputs, measured at the end of an episode of a run with no
     * judge (a judged episode's is its judgment's): null when not measured.
     */
    statementCoverage: doublePrecision('statement_coverage'),
    branchCoverage: doublePrecision('branch_coverage'),
    /** In-context only: how many examples the agent was shown (k), and where they came from
     * (`generated`: budget-matched, domain/inputs/generator.ts; `probe`: the first k probe inputs). */
    inContextK: integer('in_context_k'),
    inContextExamples: text('in_context_examples', { enum: ['generated', 'probe'] }),
    tokensIn: integer('tokens_in').notNull().default(0),
    tokensOut: integer('tokens_out').notNull().default(0),
    costUsd: doublePrecision('cost_usd').notNull().default(0),
    /**
     * The adapters that served the episode's model turns, each once in the order first used, as the serving
     * side resolved the model: `base` or a trained adapter's sha256 (domain/training/sampledWith.ts). Null
     * before its first turn (and for episodes recorded before the column).
     */
    sampledWith: text('sampled_with').array(),
    workflowId: text('workflow_id'),
    /** Set while the episode waits out an outage of its model (which model, since when, the last error). */
    waitingFor: text('waiting_for'),
    waitingSince: timestamp('waiting_since', { withTimezone: true }),
    waitError: text('wait_error'),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('episodes_identity_uq').on(t.runId, t.methodId, t.model, t.setting, t.sample), index('episodes_run_status_idx').on(t.runId, t.status)],
);

export const steps = pgTable(
  'steps',
  {
    episodeId: text('episode_id')
      .notNull()
      .references(() => episodes.id, { onDelete: 'cascade' }),
    idx: integer('idx').notNull(),
    /** A StepKind (activities/episode/steps.ts lists the 7 kinds and their columns). */
    kind: text('kind').notNull(),
    agentMessage: jsonb('agent_message').$type<StepAgentMessage>(),
    call: jsonb('call').$type<StepCall>(),
    observation: jsonb('observation').$type<StepObservation>(),
    tokensIn: integer('tokens_in').notNull().default(0),
    tokensOut: integer('tokens_out').notNull().default(0),
    /** AAC-GRPO: the frozen critic's reward of this (assistant) step, scaled to [0, 1], and its rationale. */
    criticReward: doublePrecision('critic_reward'),
    criticRationale: text('critic_rationale'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.episodeId, t.idx] })],
);

export const judgments = pgTable(
  'judgments',
  {
    episodeId: text('episode_id')
      .notNull()
      .references(() => episodes.id, { onDelete: 'cascade' }),
    judgeModel: text('judge_model').notNull(),
    /** The judge's score: the expectation over its score token's distribution (continuous, 1-5), or the mean of sampled verdicts. */
    score: doublePrecision('score'),
    /** How the score was obtained: distribution, argmax, digit mass, or samples (domain/judge/scoreDistribution.ts). */
    scoreDetail: jsonb('score_detail').$type<ScoreDetail>(),
    unparsable: integer('unparsable').notNull().default(0),
    rationale: text('rationale'),
    generatedCode: text('generated_code'),
    codeMatch: doublePrecision('code_match'),
    statementCoverage: doublePrecision('statement_coverage'),
    branchCoverage: doublePrecision('branch_coverage'),
    /** Older rows (and hand-written fixtures) lack fields added since: a reader sees them as optional. */
    diagnostics: jsonb('diagnostics').$type<Partial<EpisodeDiagnostics>>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().default(sql`now()`),
  },
  (t) => [primaryKey({ columns: [t.episodeId, t.judgeModel] })],
);
