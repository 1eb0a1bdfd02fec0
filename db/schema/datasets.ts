// Datasets and the methods they hold. A method row is one normalised source record (keyed by source and
// source id) with its filter verdict; dataset_methods says which dataset holds it and in which split.
import { index, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import type { AnyDocument, JsonObject } from '../../domain/common/jsonDocument';
import type { StoredOutcome } from '../../domain/dataset/outcome';
import type { BuildSummary } from '../../domain/dataset/summary';

export const datasets = pgTable('datasets', {
  name: text('name').primaryKey(),
  /** `sha256:...` over sources, rules, config and members (datasets/hash.ts); '' while building. */
  contentHash: text('content_hash').notNull(),
  /** The BuildConfig of a built dataset, or a fixture's own description (tests, chaos). */
  config: jsonb('config').$type<AnyDocument>().notNull(),
  summary: jsonb('summary').$type<BuildSummary>(),
  status: text('status', { enum: ['building', 'ready', 'failed'] })
    .notNull()
    .default('building'),
  /** The BuildDatasetWorkflow that last built it. */
  workflowId: text('workflow_id'),
  /** Every method id the last build considered (accepted or not), so finalisation can read them back. */
  candidateIds: jsonb('candidate_ids').$type<string[]>().notNull().default([]),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export const methods = pgTable(
  'methods',
  {
    /** Deterministic: `${source}/${sourceId}`. */
    id: text('id').primaryKey(),
    source: text('source').notNull(),
    sourceId: text('source_id').notNull(),
    entryPoint: text('entry_point'),
    /** The `def` line the agent sees: name and parameters, no docstring, no body. */
    signature: text('signature'),
    code: text('code').notNull(),
    codeHash: text('code_hash'),
    /** Near-duplicate key (identifiers renamed; see docs/datasets.md). */
    nearHash: text('near_hash'),
    /** docstring | task-text | instruction | code-only (no description: judge against the code). */
    goldKind: text('gold_kind'),
    goldDescription: text('gold_description'),
    /** Python-literal argument strings known to be valid (shown or used for in-context examples). */
    probeInputs: jsonb('probe_inputs').$type<string[]>().notNull().default([]),
    /** Python-literal argument strings kept back for code match; disjoint from probeInputs. */
    heldoutInputs: jsonb('heldout_inputs').$type<string[]>().notNull().default([]),
    /** Results of the probe / held-out calls as the build observed them (domain/dataset/outcome.ts). */
    probeOutputs: jsonb('probe_outputs').$type<StoredOutcome[]>(),
    heldoutOutputs: jsonb('heldout_outputs').$type<StoredOutcome[]>(),
    /** Generated held-out inputs for code match (domain/inputs/generator.ts), chosen and run by the build's
     * sandbox check; null for rows checked before typed generation (the judge then mutates literals). */
    heldoutGenerated: jsonb('heldout_generated').$type<string[]>(),
    /** Their outcomes as the build observed them (values, or exceptions: those are expected behaviour too). */
    heldoutGeneratedOutputs: jsonb('heldout_generated_outputs').$type<StoredOutcome[]>(),
    /** Why the method is left out of code match (e.g. fewer than 2 distinct held-out outcomes); null: it counts. */
    codeMatchExclusion: text('code_match_exclusion'),
    /** sha256 of the outcomes on the shared fingerprint inputs of its input types; equal keys = same behaviour
     * (such methods stay in one split). Null when the fingerprint says too little (fewer than 2 outcomes). */
    behaviourKey: text('behaviour_key'),
    /** Hash of what the sandbox checks depend on; an unchanged key keeps the runtime verdict on rebuild. */
    checkKey: text('check_key'),
    checkedAt: timestamp('checked_at', { withTimezone: true }),
    verdict: text('verdict', { enum: ['pending', 'accepted', 'rejected'] })
      .notNull()
      .default('pending'),
    rejectReasons: jsonb('reject_reasons').$type<string[]>().notNull().default([]),
    meta: jsonb('meta').$type<JsonObject>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('methods_source_idx').on(t.source, t.sourceId), index('methods_verdict_idx').on(t.verdict)],
);

export const datasetMethods = pgTable(
  'dataset_methods',
  {
    datasetName: text('dataset_name')
      .notNull()
      .references(() => datasets.name, { onDelete: 'cascade' }),
    methodId: text('method_id')
      .notNull()
      .references(() => methods.id, { onDelete: 'cascade' }),
    split: text('split', { enum: ['train', 'validation', 'test'] }).notNull(),
    position: integer('position').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.datasetName, t.methodId] }), index('dataset_methods_split_idx').on(t.datasetName, t.split)],
);
