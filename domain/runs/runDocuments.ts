// A run's two documents, `runs.config` and `runs.summary`, one schema per run kind: the benchmark's, the
// trainings', the calibration's, an on-policy critic card's rollouts' (their summary is the card's table). Kinds that store no config of their own (a judging pass, a dataset build,
// a doctor check: their documents live in their own tables) hold an empty object. db/runDocuments.ts
// reads both through parseJsonb.
import type { z } from 'zod';
import { benchmarkRunSummarySchema, storedBenchmarkConfigSchema } from '../bench/types';
import { storedCalibrationConfigSchema } from '../calibration/types';
import { calibrationRunSummarySchema } from '../calibration/summarize';
import { documentSchema } from '../common/jsonDocument';
import { grpoConfigSchema, grpoRunSummarySchema } from '../training/grpo';
import { onPolicyRolloutConfigSchema } from '../training/onPolicyCard';
import { sftRunSummarySchema, sftTrainConfigSchema } from '../training/sftTrain';
import type { RunKind } from './runKinds';

const noDocument = documentSchema<Record<string, never>>({});

export const runConfigSchemas = {
  benchmark: storedBenchmarkConfigSchema,
  grpo: grpoConfigSchema,
  sft: sftTrainConfigSchema,
  calibration: storedCalibrationConfigSchema,
  judge: noDocument,
  dataset: noDocument,
  doctor: noDocument,
  'critic-card': onPolicyRolloutConfigSchema,
} satisfies Record<RunKind, z.ZodType>;

export const runSummarySchemas = {
  benchmark: benchmarkRunSummarySchema,
  grpo: grpoRunSummarySchema,
  sft: sftRunSummarySchema,
  calibration: calibrationRunSummarySchema,
  judge: noDocument,
  dataset: noDocument,
  doctor: noDocument,
  'critic-card': noDocument,
} satisfies Record<RunKind, z.ZodType>;

export type RunConfigOf<K extends RunKind> = z.output<(typeof runConfigSchemas)[K]>;
/** Any kind's summary also points at the run's latest report (`report`: reports.id; platform/report/produceReport.ts). */
export type RunSummaryOf<K extends RunKind> = z.output<(typeof runSummarySchemas)[K]> & { report?: number };
/** What a `runs.config` cell holds: one of the kinds' configs. */
export type RunConfig = RunConfigOf<RunKind>;
/** What a `runs.summary` cell holds: one of the kinds' summaries. */
export type RunSummary = RunSummaryOf<RunKind>;
