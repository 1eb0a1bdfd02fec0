// The ranges of a training run's trainer settings (`sft train`'s flags; the trainer spec they become): wide
// enough for any run this project trains, narrow enough that a typo (an lr of 2e4, 10^9 steps) is refused
// at the command line and again when the run starts, not found hours into a job. Pure.
import { realRange, wholeRange } from '../common/numberRange';
import { SEED_RANGE } from '../llm/modelParams';

/**
 * `grpo train`'s own settings beside TRAINING_RANGES (the trainer's): G at least 2 (a group of one has no
 * relative signal), the std floor in score points. The rollouts' and the evaluation's budgets are the
 * episode's (BUDGET_RANGES).
 */
export const GRPO_RANGES = {
  methodsPerEpoch: wholeRange(1, 10_000),
  group: wholeRange(2, 64),
  rolloutWindow: wholeRange(1, 1_000),
  epochs: wholeRange(1, 1_000),
  maxTokens: wholeRange(16, 32_768),
  temperature: realRange(0, 2, { minExclusive: true }),
  klBeta: realRange(0, 10),
  /** The truncated importance weight's cap: above 1 (a cap at or below 1 only shrinks every update). */
  tisCap: realRange(1, 100, { minExclusive: true }),
  clipEps: realRange(0, 1, { minExclusive: true }),
  /** 1e-6 to 1e-2: below it Adam's steps move nothing measurable, above it a LoRA adapter diverges. */
  lr: realRange(1e-6, 1e-2),
  stdFloor: realRange(0, 10),
  codeMatchWeight: realRange(0, 100),
  evalEvery: wholeRange(0, 1_000),
  evalLimit: wholeRange(1, 100_000),
};

export const TRAINING_RANGES = {
  /** Epochs over the data (fractions allowed: 1.5 trains half the data twice). */
  epochs: realRange(0, 100, { minExclusive: true }),
  lr: realRange(0, 1, { minExclusive: true }),
  loraRank: wholeRange(1, 1_024),
  loraAlpha: realRange(0, 4_096, { minExclusive: true }),
  maxSteps: wholeRange(1, 1_000_000),
  saveEvery: wholeRange(1, 1_000_000),
  /** Tokens per trained conversation: also at most the base's serving context (domain/training/maxLength.ts). */
  maxLength: wholeRange(16, 131_072),
  /** Conversations per optimiser step, all processes together. */
  batchSize: wholeRange(1, 4_096),
  seed: SEED_RANGE,
  threads: wholeRange(1, 1_024),
};

/** Every ranged setting of a GRPO run's config under the config's names: its own and the trainer's it passes on. */
export const GRPO_CONFIG_RANGES = {
  ...GRPO_RANGES,
  loraRank: TRAINING_RANGES.loraRank,
  miniBatchSize: TRAINING_RANGES.batchSize,
  maxLength: TRAINING_RANGES.maxLength,
  threads: TRAINING_RANGES.threads,
  seed: TRAINING_RANGES.seed,
};
