// A dataset build's configuration. Everything that changes the result is here, so the content hash can
// cover it; defaults follow the paper where it speaks (test split of 741) and docs/datasets.md elsewhere.
import { z } from 'zod';
import { limitsSchema } from '../domain/sandbox/schemas';
import { SOURCE_NAMES } from './sources';

/** The sandbox limits a build runs methods under: the contract's fields (domain/sandbox) with the build's defaults. */
export const BuildLimits = z.object({
  /** Wall time per call. */
  timeoutMs: limitsSchema.shape.timeoutMs.default(2_000),
  memoryMb: limitsSchema.shape.memoryMb.default(512),
});
export type BuildLimits = z.infer<typeof BuildLimits>;

export const BuildConfig = z.object({
  name: z
    .string()
    .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'lowercase letters, digits, . _ - (max 64)')
    .default('pau-v1'),
  sources: z
    .array(z.enum(SOURCE_NAMES))
    .min(1)
    .default([...SOURCE_NAMES]),
  /** Take only the first N records of each source (for quick builds and tests). */
  limit: z.number().int().min(1).optional(),
  seed: z.string().default('pau-v1'),
  split: z
    .object({
      test: z.number().int().min(0).default(741),
      validation: z.number().int().min(0).default(100),
    })
    .default({ test: 741, validation: 100 }),
  /** Share of a method's known inputs kept back for code match (never shown); at least one probe stays. */
  heldoutFraction: z.number().min(0).max(0.9).default(0.5),
  /** CruxEval has no description: `code-only` (the judge compares with the code) or `exclude` (drop CruxEval). */
  cruxevalGold: z.enum(['code-only', 'exclude']).default('code-only'),
  codealpaca: z.enum(['auto', '20k', '2k']).default('auto'),
  /** Methods per sandbox activity, and how many such activities run at once. */
  batchSize: z.number().int().min(1).max(500).default(25),
  concurrency: z.number().int().min(1).max(64).default(4),
  limits: BuildLimits.default({ timeoutMs: 2_000, memoryMb: 512 }),
  /**
   * Where the source files are read from (absolute). Filled by the client that starts the build (its
   * `--data-dir` or its PAU_DATA_DIR), so the build's recorded input says which copy was used and the
   * worker's environment does not decide. Not part of the content hash: every file is checksummed.
   * Builds recorded before this field fall back to the worker's PAU_DATA_DIR.
   */
  dataDir: z.string().min(1).optional(),
});
export type BuildConfig = z.infer<typeof BuildConfig>;
export type BuildConfigInput = z.input<typeof BuildConfig>;

/** Version of the filter rules; part of every method's check key and of the dataset hash. */
export const FILTER_VERSION = 'pau-filters-1';
