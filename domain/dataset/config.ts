// A dataset build's configuration. Everything that changes the result is here, so the content hash can
// cover it; defaults follow the paper where it speaks (test split of 741) and docs/datasets.md elsewhere.
import { z } from 'zod';
import { limitsSchema } from '../sandbox/schemas';
import { rangeSchema, wholeRange } from '../common/numberRange';
import { SOURCE_NAMES } from './sources';

/** The sandbox limits a build runs methods under: the contract's fields (domain/sandbox) with the build's defaults. */
export const BuildLimits = z.object({
  /** Wall time per call. */
  timeoutMs: limitsSchema.shape.timeoutMs.default(2_000),
  memoryMb: limitsSchema.shape.memoryMb.default(512),
});
export type BuildLimits = z.infer<typeof BuildLimits>;

export const SPLIT_SCHEMES = ['proportional', 'by-source'] as const;
/** Where a source's methods go under the by-source scheme; `official` is MBPP's own split (task ids). */
export const SourceSplit = z.enum(['test', 'validation', 'train', 'official']);
export type SourceSplit = z.infer<typeof SourceSplit>;
export const DEFAULT_BY_SOURCE = { humaneval: 'test', mbpp: 'test', cruxeval: 'test', codealpaca: 'train' } as const;

/** Generated inputs (domain/inputs/generator.ts): held-out inputs for code match, behaviour fingerprints,
 * and example calls for methods whose source gives none. */
export const InputsConfig = z.object({
  /** A method with no literal example call gets `missingCount` generated calls (then the usual sandbox filters). */
  generateMissing: z.boolean().default(true),
  missingCount: z.number().int().min(1).max(64).default(12),
  /** Generated held-out inputs kept per method, from `heldoutCandidates` tried. */
  heldoutGenerated: z.number().int().min(0).max(64).default(10),
  heldoutCandidates: z.number().int().min(0).max(128).default(16),
  /** At most this share of the generated held-out inputs may raise (exception behaviour is scored, not dominant). */
  maxRaisingShare: z.number().min(0).max(1).default(0.3),
  /** Below this many distinct held-out outcomes a method is excluded from code match (with the reason stored). */
  minDistinctOutputs: z.number().int().min(1).default(2),
  /** Inputs of a behaviour fingerprint (0: no behaviour clustering). */
  fingerprint: z.number().int().min(0).max(64).default(16),
  /** Wall time per generated call (a generated input that is slow says little and costs the build). */
  timeoutMs: z.number().int().min(50).max(60_000).default(1_000),
  seed: z.number().int().default(1),
});
export type InputsConfig = z.infer<typeof InputsConfig>;

/** The first N records of each source (`--limit`): more than any source has (CodeAlpaca's 20,022). */
export const RECORD_LIMIT_RANGE = wholeRange(1, 100_000);
/** A split's size (`--test`, `--validation`): at most every record a source could give. */
export const SPLIT_SIZE_RANGE = wholeRange(0, 100_000);
/** Methods per sandbox batch (one activity) and batches in flight (`--batch-size`, `--concurrency`). */
export const BATCH_SIZE_RANGE = wholeRange(1, 500);
export const CONCURRENCY_RANGE = wholeRange(1, 64);

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
  limit: rangeSchema(RECORD_LIMIT_RANGE).optional(),
  seed: z.string().default('pau-v1'),
  split: z
    .object({
      /** `proportional` (default): test and validation sizes as in the paper, each source in proportion to
       * its share of the pool. `by-source`: each source goes to the split `bySource` names (validation, when
       * no source gives one, is `validation` methods drawn from the training sources). */
      scheme: z.enum(SPLIT_SCHEMES).default('proportional'),
      test: rangeSchema(SPLIT_SIZE_RANGE).default(741),
      validation: rangeSchema(SPLIT_SIZE_RANGE).default(100),
      bySource: z.partialRecord(z.enum(SOURCE_NAMES), SourceSplit).default({ ...DEFAULT_BY_SOURCE }),
    })
    .default({ scheme: 'proportional', test: 741, validation: 100, bySource: { ...DEFAULT_BY_SOURCE } }),
  /** Share of a method's known inputs kept back for code match (never shown); at least one probe stays. */
  heldoutFraction: z.number().min(0).max(0.9).default(0.5),
  /** CruxEval has no description: `code-only` (the judge compares with the code) or `exclude` (drop CruxEval). */
  cruxevalGold: z.enum(['code-only', 'exclude']).default('code-only'),
  codealpaca: z.enum(['auto', '20k', '2k']).default('auto'),
  /** Methods per sandbox activity, and how many such activities run at once. */
  batchSize: rangeSchema(BATCH_SIZE_RANGE).default(25),
  concurrency: rangeSchema(CONCURRENCY_RANGE).default(4),
  limits: BuildLimits.default({ timeoutMs: 2_000, memoryMb: 512 }),
  inputs: InputsConfig.default(InputsConfig.parse({})),
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
export const FILTER_VERSION = 'pau-filters-2';
