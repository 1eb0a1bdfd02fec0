// An SFT run (`pau sft train`): its configuration, the trainer spec built from it, and its result. Pure.
import { z } from 'zod';
import type { BenchmarkConfig } from '../bench/types';
import { documentSchema } from '../common/jsonDocument';
import { rangesSchema, schemaProblems } from '../common/numberRange';
import { runConfigProblems } from '../bench/configBounds';
import { TRAINING_RANGES } from './trainingRanges';
import type { EpisodeBudgets, Setting } from '../episode/types';
import type { SftComparison } from '../report/sftComparison';
import type { TrainerJobInput } from './trainerProtocol';

export interface SftEvalConfig {
  dataset: string;
  split: string;
  settings: Setting[];
  samples: number;
  limit?: number;
  methodIds?: string[];
  judgeModel: string;
  budgets?: Partial<EpisodeBudgets>;
  window?: number;
}

/** The judged benchmark run an SFT step runs (the teacher's episodes, or the checkpoint beside its base). */
export function sftBenchmarkConfig(e: SftEvalConfig, models: string[]): BenchmarkConfig {
  return {
    dataset: e.dataset,
    split: e.split,
    models,
    settings: e.settings,
    samples: e.samples,
    judgeModel: e.judgeModel,
    ...(e.limit ? { limit: e.limit } : {}),
    ...(e.methodIds ? { methodIds: e.methodIds } : {}),
    ...(e.budgets ? { budgets: e.budgets } : {}),
    ...(e.window ? { window: e.window } : {}),
  };
}

export interface SftTrainConfig {
  /** The SFT data set (sft_datasets.name). */
  data: string;
  /** The base model's registry name (a local GGUF model, e.g. `local/smollm2-135m`). */
  base: string;
  epochs?: number;
  lr?: number;
  loraRank?: number;
  loraAlpha?: number;
  maxSteps?: number;
  saveEvery?: number;
  maxLength?: number;
  batchSize?: number;
  seed?: number;
  threads?: number;
  /** Benchmark the checkpoint beside its base (null: train and register only). */
  eval: SftEvalConfig | null;
}

const sftTrainBoundsSchema = rangesSchema(TRAINING_RANGES);

/**
 * What keeps an SFT run's config from running: a trainer setting out of its range, or an evaluation whose
 * benchmark config is out of its ranges (`eval.budgets.maxCalls must be ...`); empty: nothing.
 */
export function sftTrainConfigProblems(config: SftTrainConfig): string[] {
  return [
    ...schemaProblems(sftTrainBoundsSchema, config),
    ...(config.eval ? runConfigProblems(sftBenchmarkConfig(config.eval, [config.base])).map((p) => `eval.${p}`) : []),
  ];
}

/** An SFT run's runs.config as stored (checked at the fields every start writes). */
export const sftTrainConfigSchema = documentSchema<SftTrainConfig>({ data: z.string(), base: z.string() });

export interface SftTrainInput {
  runId: string;
  config: SftTrainConfig;
}

export interface SftTrainingFigures {
  examples: number;
  steps: number;
  firstLoss: number | null;
  finalLoss: number | null;
  trainS: number | null;
  tokensPerS: number | null;
  sPerStep: number | null;
  /** The save the last training attempt resumed from (0 when it ran from the start). */
  resumedFromStep: number;
  /** Examples dropped because they are longer than max_length (never cut), and the longest one's tokens. */
  droppedTooLong?: number | null;
  longestTokens?: number | null;
  /** Assistant turns cut at max_tokens whose end-of-turn token was left out of training. */
  lengthCutMasked?: number | null;
  /** Examples left out before training: their requests were not in the ledger as served (servedLine.ts). */
  notAsServed?: number | null;
}

/** An SFT run's runs.summary: the checkpoint, its figures, its evaluation run and the comparison with the base; the stage a failed run stopped at. */
export interface SftRunSummary {
  checkpointId?: string;
  checkpointModel?: string;
  training?: SftTrainingFigures;
  evalRunId?: string | null;
  comparison?: SftComparison;
  stage?: string;
}
export const sftRunSummarySchema = documentSchema<SftRunSummary>({ checkpointModel: z.string().optional(), evalRunId: z.string().nullable().optional() });

export interface SftTrainResult {
  runId: string;
  checkpointId: string;
  checkpointModel: string;
  training: SftTrainingFigures;
  evalRunId: string | null;
  comparison: SftComparison | null;
}

/** The trainer's sft spec for this run (data path and base file are the gpu host's). */
export function sftTrainerSpec(config: SftTrainConfig, dataFile: string, baseFile: string): Extract<TrainerJobInput, { command: 'sft' }>['spec'] {
  const lora = {
    ...(config.loraRank !== undefined ? { rank: config.loraRank } : {}),
    ...(config.loraAlpha !== undefined ? { alpha: config.loraAlpha } : {}),
  };
  return {
    base_model: baseFile,
    data: dataFile,
    ...(Object.keys(lora).length > 0 ? { lora } : {}),
    ...(config.epochs !== undefined ? { epochs: config.epochs } : {}),
    ...(config.lr !== undefined ? { lr: config.lr } : {}),
    ...(config.maxSteps !== undefined ? { max_steps: config.maxSteps } : {}),
    ...(config.saveEvery !== undefined ? { save_every: config.saveEvery } : {}),
    ...(config.maxLength !== undefined ? { max_length: config.maxLength } : {}),
    ...(config.batchSize !== undefined ? { batch_size: config.batchSize } : {}),
    ...(config.seed !== undefined ? { seed: config.seed } : {}),
    ...(config.threads !== undefined ? { threads: config.threads } : {}),
  };
}

/** a + b, null when both are absent (metrics of trainers before the count). */
export function sumOf(a: number | null, b: number | null): number | null {
  return a === null && b === null ? null : (a ?? 0) + (b ?? 0);
}

/** The figures of a done event's metrics (the trainer's names: docs/trainer.md). */
export function trainingFigures(
  metrics: Record<string, unknown>,
  steps: number,
  examples: number,
  resumedFromStep = 0,
  notAsServed: number | null = null,
): SftTrainingFigures {
  const num = (k: string) => (typeof metrics[k] === 'number' ? (metrics[k] as number) : null);
  return {
    examples,
    steps,
    firstLoss: num('first_loss'),
    finalLoss: num('final_loss'),
    trainS: num('train_s'),
    tokensPerS: num('tokens_per_s'),
    sPerStep: num('s_per_step'),
    resumedFromStep,
    droppedTooLong: num('dropped_too_long'),
    longestTokens: num('longest_tokens'),
    lengthCutMasked: sumOf(num('length_cut_eos_masked'), num('length_cut_whole_masked')),
    notAsServed,
  };
}
