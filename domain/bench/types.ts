// Types shared by the benchmark-run activities, the workflow and the CLI.
import { z } from 'zod';
import { documentSchema } from '../common/jsonDocument';
import type { EpisodeInput, Setting } from '../episode/types';
import { NAME_SETTINGS } from '../episode/names';
import type { SelfJudgePair } from '../judge/selfJudge';
import { type RunJudgeFields, runJudgeFieldsShape } from '../judge/config';

/**
 * The episode settings a run gives every one of its episodes, as EpisodeInput names and documents them
 * (`sandbox` unset: the starter fills PAU_SANDBOX_PLACEMENT, default `inline`).
 */
type EpisodeSettings = Pick<
  EpisodeInput,
  | 'budgets'
  | 'k'
  | 'inContextExamples'
  | 'params'
  | 'replay'
  | 'sandboxLimits'
  | 'sandbox'
  | 'outageWaitSeconds'
  | 'outageFirstRetrySeconds'
  | 'modelRetry'
  | 'names'
>;

export interface BenchmarkConfig extends EpisodeSettings {
  dataset: string;
  split: string;
  models: string[];
  settings: Setting[];
  /** Samples per method × model × setting. */
  samples: number;
  /** Only the first N methods of the split (in dataset order). */
  limit?: number;
  /** Or an explicit list of method ids (tests, reruns of a subset); takes precedence over dataset/split. */
  methodIds?: string[];
  /**
   * A model's episodes cover only the first N of the run's methods (the others' cover all): `npm start` runs the
   * scripted anchors, which cost nothing to run, on more methods than a CPU-served model (domain/bench/episodeSlots.ts).
   */
  modelLimits?: Record<string, number>;
  /** Child workflows in flight (the CLI's default scales with the cores: defaultWindow(); else 50). */
  window?: number;
  /** Episodes started per workflow execution before continue-as-new (default 500). */
  episodesPerExecution?: number;
  /** Judge each completed episode with this model, as the episode's last step (unset: no judging). */
  judgeModel?: string;
  /** Started with --allow-unqualified-judge: the judge's card failed, and the report marks its scores. */
  allowUnqualifiedJudge?: boolean;
  /** A run forced with --allow-self-judge: the judge is an agent, its base or a checkpoint (domain/judge/selfJudge.ts). */
  selfJudge?: SelfJudgePair[];
  /** Set on runs started by a Schedule: the report compares with the previous run of the same schedule. */
  scheduleId?: string;
}

export interface RunTotals {
  done: number;
  failed: number;
  /** Episodes stopped by a cancellation of the run. */
  cancelled?: number;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
}

export interface BenchmarkRunInput {
  runId: string;
  config: BenchmarkConfig;
  /** Carried over continue-as-new. */
  cursor?: number;
  totals?: RunTotals;
  /** Continue a stopped run: episodes already completed or failed are counted, not started again. */
  resume?: boolean;
}

export interface BenchmarkRunResult {
  runId: string;
  total: number;
  totals: RunTotals;
}

/** A benchmark run's runs.config: the config as started, and the method ids frozen when it starts. */
export interface StoredConfig extends BenchmarkConfig, Pick<RunJudgeFields, 'coderModel' | 'judge'> {
  /** Frozen when the run starts (absent while the row only records a start that has not resolved yet). */
  resolvedMethodIds?: string[];
}
export const storedBenchmarkConfigSchema = documentSchema<StoredConfig>({
  ...runJudgeFieldsShape,
  dataset: z.string(),
  split: z.string(),
  models: z.array(z.string()),
  settings: z.array(z.string()),
  samples: z.number(),
  resolvedMethodIds: z.array(z.string()).optional(),
  names: z.enum(NAME_SETTINGS).optional(),
});

/** A benchmark run's runs.summary: its totals once it ended. */
export type BenchmarkRunSummary = RunTotals & { total: number };
export const benchmarkRunSummarySchema = documentSchema<BenchmarkRunSummary>({ done: z.number(), failed: z.number() });
