// An AAC-GRPO run (`pau grpo train`): its configuration, the ids and seeds derived from it, the episode
// input of each rollout, the trainer spec of each epoch's update, and the per-epoch figures. Pure (used inside
// the workflow, by activities and by the CLI).
import { SAMPLED_TOKEN_PARAMS } from './sampledTokens';
import { CRITIC_FORMATS, type CriticFormat } from './criticPrompt';
import type { SearchAttributePair } from '@temporalio/common';
import { z } from 'zod';
import { documentSchema } from '../common/jsonDocument';
import type { BenchmarkConfig } from '../bench/types';
import { runJudgeFieldsShape } from '../judge/config';
import { episodeWorkflowId } from '../bench/workflowIds';
import { fnv1a } from '../common/hash';
import { episodeIdOf, type EpisodeBudgets, type EpisodeInput, type SandboxPlacement } from '../episode/types';
import { PauEpoch, PauKind, PauModel, PauRunId, PauSplit } from '../temporal/searchAttributes';
import { checkpointModelName } from './checkpointIds';
import type { GrpoEvalFigures } from './grpoEval';
import type { RolloutGroupFigures } from './rolloutOutcome';
import { sumOf } from './sftTrain';
import type { AdvantageScale, TrainerJobInput } from './trainerProtocol';
import { rangesSchema, schemaProblems } from '../common/numberRange';
import { BUDGET_RANGES } from '../episode/bounds';
import { GRPO_CONFIG_RANGES } from './trainingRanges';

/**
 * mix (the default): critic step rewards + the judged outcome on every message; aac: the critic's step rewards
 * only on the exploration steps; outcome: the judged final reward only (plain GRPO). In every mode the final
 * message (the description) carries the outcome advantage (docs/training.md, "Advantages").
 */
export const GRPO_REWARDS = ['aac', 'outcome', 'mix'] as const;
export const DEFAULT_GRPO_REWARD: GrpoReward = 'mix';
export type GrpoReward = (typeof GRPO_REWARDS)[number];

export const GRPO_EVAL_BUDGETS = ['training', 'benchmark'] as const;
export type GrpoEvalBudgets = (typeof GRPO_EVAL_BUDGETS)[number];

/**
 * The update's defaults (docs/training.md, "The update's step size"): LoRA rank 8, alpha 16 on every linear
 * layer of the blocks, lr 5e-4. LoRA's good learning rate is about 10x full fine-tuning's ("LoRA Without
 * Regret", 2025); TRL's LoRA GRPO recipe is 5e-5 at r 1, alpha 32 (alpha/r x lr = 1.6e-3), ours alpha/r x lr
 * = 1e-3. The earlier 1e-5 made Adam's first step a sign step of 1e-5 that moved no checkpoint measurably.
 */
export const GRPO_LR = 5e-4;
export const GRPO_LORA = {
  rank: 8,
  alpha: 16,
  targets: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'],
};

/** llama.cpp's truncation samplers, as request body params (llama.cpp reads them beside the OpenAI ones). */
export interface RolloutSampling {
  top_k: number;
  top_p: number;
  min_p: number;
}

/** Rollouts sample from the full distribution: no top-k, no nucleus, no min-p cut (0 / 1 / 0 disable them). */
export const ROLLOUT_SAMPLING: RolloutSampling = { top_k: 0, top_p: 1, min_p: 0 };

export interface GrpoConfig {
  /** The policy's base model (a local GGUF model, `local/<name>`). */
  base: string;
  /** The frozen critic (default: the base model itself, without the adapter). */
  critic: string;
  /** The critic's prompt format (domain/training/criticPrompt.ts); absent in runs started before it: rubric. */
  criticFormat?: CriticFormat;
  /** Judges each rollout's final description (the outcome reward) and the validation episodes. */
  judgeModel: string;
  dataset: string;
  split: string;
  methodsPerEpoch: number;
  /** Rollouts per method (G >= 2). */
  group: number;
  /** Rollout episodes in flight at once (default DEFAULT_ROLLOUT_WINDOW; absent in runs started before). */
  rolloutWindow?: number;
  epochs: number;
  budgets: Partial<EpisodeBudgets>;
  temperature: number;
  /**
   * Truncation samplers of the rollout requests, switched off (ROLLOUT_SAMPLING, filled in by the starter):
   * the ratio and the KL assume tokens drawn from the full distribution at `temperature`, while llama.cpp
   * defaults to top-k 40, top-p 0.95, min-p 0.05. Absent in runs started before (their requests had none).
   */
  sampling?: RolloutSampling;
  /** Cap on generated tokens per policy turn (keeps CPU rollouts short). */
  maxTokens?: number;
  reward: GrpoReward;
  /** outcome reward = judge score (1-5) + codeMatchWeight x code match on the unseen held-out inputs (0-1). */
  codeMatchWeight: number;
  klBeta?: number;
  clipEps?: number;
  /** Truncated importance sampling from the server's recorded log-probs: the weight's cap (absent: no correction). */
  tisCap?: number;
  /** The update's learning rate (absent: GRPO_LR, the trainer's default; runs started before had 1e-5). */
  lr?: number;
  /** The advantages' group divisor (absent: none, Dr. GRPO) and, for std, its floor (docs/training.md, "Advantages"). */
  advantageScale?: AdvantageScale;
  stdFloor?: number;
  loraRank?: number;
  miniBatchSize?: number;
  maxLength?: number;
  threads?: number;
  seed: number;
  /** The judge's card failed and the run was started with --allow-unqualified-judge (its reports mark the scores). */
  allowUnqualifiedJudge?: boolean;
  /** The evaluation may pair a checkpoint and a base served by different stacks (--allow-mixed-stacks; the report names both). */
  allowMixedStacks?: boolean;
  /** Benchmark the checkpoint every K epochs (and after the last); 0: never. */
  evalEvery: number;
  evalSplit: string;
  /**
   * The evaluation's budgets: `training` (the rollouts' call budget and max_tokens, greedy: where the update
   * acted) or `benchmark` (what `bench run` does with no budget flags). Absent (runs started before): benchmark.
   */
  evalBudgets?: GrpoEvalBudgets;
  /** Only the first N validation methods (unset: the whole split, as `bench run`). */
  evalLimit?: number;
  evalMethodIds?: string[];
  /** Tests: only these training methods (sampled from, in this order). */
  methodIds?: string[];
  /**
   * Where rollouts' and validation episodes' method calls run (EpisodeInput.sandbox). The starter fills in
   * the deployment's PAU_SANDBOX_PLACEMENT; absent (runs started before): `queue`.
   */
  sandbox?: SandboxPlacement;
}

/**
 * Rollouts in flight at once by default: the local models serve 2 requests at a time (2 slots), and an
 * episode spends part of each step on its sandbox calls and bookkeeping, so twice that keeps the model busy
 * on a 2-core host without piling up episodes that only wait for a slot.
 */
export const DEFAULT_ROLLOUT_WINDOW = 4;

/**
 * The rollout window of a policy served by vLLM when `--rollout-window` is not given: the engine batches
 * `maxConcurrency` requests (its `--max-num-seqs`), so that many rollouts run at once, at most the epoch's
 * (methods x group). A llama.cpp policy keeps DEFAULT_ROLLOUT_WINDOW (its 2 slots).
 */
export function engineRolloutWindow(maxConcurrency: number, epochRollouts: number): number {
  return Math.max(1, Math.min(maxConcurrency, epochRollouts));
}

/** What one epoch produced (stored in the run's summary, drawn by the report). */
export interface GrpoEpochFigures {
  epoch: number;
  policyModel: string;
  checkpointId: string;
  methods: string[];
  rollouts: number;
  failedRollouts: number;
  /**
   * Rollouts that failed because of the policy (minimum reward, kept in their group), rollouts without a
   * usable reward for other reasons, and the groups skipped for them (domain/training/rolloutOutcome.ts).
   * Absent in runs recorded before issue 23's rule (their failed and unjudged rollouts were dropped).
   */
  outcomes?: RolloutGroupFigures;
  /** Mean outcome reward over the rollouts that have one (judged, or the minimum for a policy failure). */
  meanReward: number | null;
  meanScore: number | null;
  meanCodeMatch: number | null;
  /** Mean code match on the unseen held-out inputs, the reward's (absent in runs recorded before). */
  meanCodeMatchUnobserved?: number | null;
  /** Mean critic reward over the rated steps, and how many steps were rated. */
  meanCriticReward: number | null;
  ratedSteps: number;
  /**
   * Critic answers without a reward line of the asked format (their steps count as unrated), and their share
   * of the critic calls made. Absent in runs recorded before the count existed.
   */
  criticUnparsable?: number;
  criticUnparsableShare?: number | null;
  /**
   * Rollouts whose rated steps the critic left all unrated for a recorded reason (the execution critic: the
   * method's code fails on import, ...): they train on the outcome only. By reason. Absent: none.
   */
  criticUnrated?: { rollouts: number; reasons: Record<string, number> };
  /** Rewards per group (method), for the distribution plot. */
  groups: { methodId: string; rewards: (number | null)[]; criticMeans: (number | null)[] }[];
  update: {
    steps: number;
    meanKl: number | null;
    finalLoss: number | null;
    meanClipFrac: number | null;
    tokensPerS: number | null;
    trainS: number | null;
    /** Rollouts longer than max_length, not trained (never cut); the longest's tokens; cut turns masked. */
    droppedTooLong?: number | null;
    longestTokens?: number | null;
    lengthCutMasked?: number | null;
    /**
     * The advantage's two terms, mean |A| over every policy message (so mix's weights weigh like with like),
     * the outcome reward's mean within-group spread (max - min), the share of groups without any, and the
     * rollouts the critic rated none of (the outcome only). Absent in runs recorded before.
     */
    outcomeTermAbs?: number | null;
    stepTermAbs?: number | null;
    rewardSpread?: number | null;
    zeroSpreadGroups?: number | null;
    allUnratedRollouts?: number | null;
    /**
     * Policy tokens trained as the ids their server sampled, and those re-tokenised from text (turns with none
     * recorded); the trainer's old log-probs against the server's over the sampled ones (mean |delta|, share of
     * tokens whose ratio lies outside the clip range) and the importance-sampling cap (null: no correction).
     * Absent in runs recorded before.
     */
    sampledTokens?: number | null;
    retokenisedTokens?: number | null;
    samplerGap?: number | null;
    samplerOutsideClip?: number | null;
    tisCap?: number | null;
  };
  /**
   * What the update's data preparation handed to the trainer and left out, by reason (PrepareGrpoResult:
   * `not_as_served`, `group_skipped`, `no_policy_message`, `no_transcript`, `group_dropped`). Absent in runs
   * recorded before the count.
   */
  prepared?: { rollouts: number; skipped: Record<string, number> };
  /** Wall time of the epoch's phases (ms, workflow clock). */
  timing: { rolloutsMs: number; criticMs: number; updateMs: number; exportMs: number; evalMs: number };
  eval: GrpoEvalFigures | null;
}

export type { GrpoEvalFigures, GrpoEvalModelFigures } from './grpoEval';

export interface GrpoInput {
  runId: string;
  config: GrpoConfig;
  /** Carried over continue-as-new: the epoch to run next and what the earlier ones produced. */
  epoch?: number;
  previousCheckpointId?: string | null;
  /** Its directory on the gpu host (the next update's init_adapter). */
  previousCheckpointPath?: string | null;
}

export interface GrpoResult {
  runId: string;
  epochs: number;
  lastCheckpointId: string | null;
}

/** The stages of a GRPO epoch, in order (the workflow's `stage`, named in a failure and in its progress query). */
export const GRPO_STAGES = ['sample', 'rollouts', 'critic', 'update', 'export', 'register', 'evaluate'] as const;
export type GrpoStage = (typeof GRPO_STAGES)[number];

/** What the run's progress query answers: the epoch (0-based) and the stage in it, since when (workflow clock, ms). */
export interface GrpoProgress {
  epoch: number;
  stage: GrpoStage;
  stageStartedAt: number;
}

export function grpoWorkflowId(runId: string): string {
  return `grpo/${runId}`;
}

/** The update's trainer job of epoch e (0-based): its directory, its resume point, and the checkpoint's key. */
export function grpoJobId(runId: string, epoch: number): string {
  return `grpo-${runId}-e${epoch + 1}`;
}

/** The policy-shift job that measures epoch e's checkpoint against its base on its evaluation (the gate). */
export function grpoShiftJobId(runId: string, epoch: number): string {
  return `${grpoJobId(runId, epoch)}-shift`;
}

/** The checkpoint epoch e registers (one per job). */
export function grpoCheckpointId(runId: string, epoch: number): string {
  return grpoJobId(runId, epoch);
}

export function grpoExportJobId(runId: string, epoch: number): string {
  return `${grpoJobId(runId, epoch)}-gguf`;
}

/** The validation benchmark of epoch e's checkpoint. */
export function grpoEvalRunId(runId: string, epoch: number): string {
  return `${runId}-eval-e${epoch + 1}`;
}

/** The policy that samples epoch e's rollouts: the base at epoch 0, else the previous epoch's checkpoint. */
export function policyModelOf(config: GrpoConfig, previousCheckpointId: string | null | undefined): string {
  return previousCheckpointId ? checkpointModelName(previousCheckpointId) : config.base;
}

/**
 * The sampling seed of rollout g of a method in epoch e. It does not depend on the run id, so two runs that
 * differ only in their reward (aac vs outcome) sample the same epoch-0 rollouts: the second is answered from
 * the model-call cache.
 */
export function rolloutSeed(config: Pick<GrpoConfig, 'seed' | 'dataset'>, epoch: number, methodId: string, g: number): number {
  return fnv1a(`${config.dataset}|${config.seed}|${epoch}|${methodId}|${g}`) & 0x7fffffff;
}

/** Rollout g of a method in epoch e: an interactive episode of the policy, sampled with its own seed, judged. */
export function rolloutEpisodeInput(
  runId: string,
  config: Pick<GrpoConfig, 'split' | 'budgets' | 'temperature' | 'sampling' | 'seed' | 'dataset' | 'maxTokens' | 'judgeModel' | 'sandbox'>,
  epoch: number,
  policy: string,
  methodId: string,
  g: number,
): EpisodeInput {
  const sample = epoch * 1000 + g;
  return {
    runId,
    episodeId: episodeIdOf(runId, methodId, policy, 'interactive', sample),
    methodId,
    model: policy,
    setting: 'interactive',
    sample,
    split: config.split,
    budgets: config.budgets,
    params: {
      temperature: config.temperature,
      ...(config.sampling ?? {}),
      // the trainer trains the ids the server sampled, and weighs them by its log-probs (sampledTokens.ts)
      ...SAMPLED_TOKEN_PARAMS,
      seed: rolloutSeed(config, epoch, methodId, g),
      ...(config.maxTokens ? { max_tokens: config.maxTokens } : {}),
    },
    judge: { judgeModel: config.judgeModel },
    ...(config.sandbox === 'inline' ? { sandbox: 'inline' as const } : {}),
  };
}

export function rolloutWorkflowId(input: EpisodeInput): string {
  return episodeWorkflowId(input.runId, input.methodId, input.model, input.setting, input.sample);
}

/**
 * The validation benchmark of a checkpoint beside its base. `benchmarkBudgets` (runs since issue 23): what
 * `bench run` does with no budget flags, the benchmark's budgets (DEFAULT_BUDGETS) and the models' own request
 * params, so its figures compare with any benchmark run; before, the training budgets and max_tokens, greedy.
 * An unqualified judge forced at the start is carried over, so the benchmark report marks its scores.
 */
export function grpoEvalConfig(config: GrpoConfig, checkpointModel: string, benchmarkBudgets = false): BenchmarkConfig {
  return {
    dataset: config.dataset,
    split: config.evalSplit,
    models: [checkpointModel, config.base],
    settings: ['interactive'],
    samples: 1,
    judgeModel: config.judgeModel,
    ...(benchmarkBudgets
      ? { ...(config.allowUnqualifiedJudge ? { allowUnqualifiedJudge: true } : {}) }
      : { budgets: config.budgets, params: { temperature: 0, ...(config.maxTokens ? { max_tokens: config.maxTokens } : {}) } }),
    ...(config.evalMethodIds ? { methodIds: config.evalMethodIds } : config.evalLimit ? { limit: config.evalLimit } : {}),
    ...(config.sandbox ? { sandbox: config.sandbox } : {}),
  };
}

export function shouldEvaluate(config: GrpoConfig, epoch: number): boolean {
  if (config.evalEvery <= 0) return false;
  return (epoch + 1) % config.evalEvery === 0 || epoch + 1 === config.epochs;
}

/**
 * The trainer's advantage settings for a reward choice (docs/training.md, "Advantages"): the step term is the
 * mean of the group-normalised critic rewards over the rated steps to go, centred on the group-mates' rated
 * steps (leave-one-out: no baseline that moves with the rollout's own length), and the final message always gets
 * the outcome advantage (the trainer's defaults, written out so the checkpoint's recorded spec says them).
 */
export function advantageOf(
  reward: GrpoReward,
  scale: AdvantageScale = 'none',
  stdFloor?: number,
): NonNullable<Extract<TrainerJobInput, { command: 'grpo-update' }>['spec']['advantage']> {
  const divisor = { scale, ...(scale === 'std' && stdFloor ? { std_floor: stdFloor } : {}) };
  if (reward === 'outcome') return { mode: 'outcome', ...divisor };
  if (reward === 'aac') return { mode: 'aac', step_weight: 1, ...divisor };
  return { mode: 'mix', step_weight: 1, outcome_weight: 1, ...divisor };
}

/** Epoch e's grpo-update spec (paths are the gpu host's; initAdapter: the previous checkpoint's directory). */
export function grpoTrainerSpec(
  config: GrpoConfig,
  epoch: number,
  rolloutsFile: string,
  baseFile: string,
  initAdapter: string | null,
): Extract<TrainerJobInput, { command: 'grpo-update' }>['spec'] {
  return {
    base_model: baseFile,
    rollouts: rolloutsFile,
    advantage: advantageOf(config.reward, config.advantageScale, config.stdFloor),
    // the ratio and the KL are those of the distribution the rollouts were drawn from
    temperature: config.temperature,
    seed: config.seed + epoch,
    save_every: 1,
    // the previous epoch's adapter and its optimiser state: Adam goes on where it stopped
    ...(initAdapter ? { init_adapter: initAdapter, init_optimizer: true } : {}),
    ...(initAdapter ? {} : { lora: { ...GRPO_LORA, ...(config.loraRank !== undefined ? { rank: config.loraRank, alpha: config.loraRank * 2 } : {}) } }),
    lr: config.lr ?? GRPO_LR,
    ...(config.klBeta !== undefined ? { kl_beta: config.klBeta } : {}),
    ...(config.clipEps !== undefined ? { clip_eps: config.clipEps } : {}),
    ...(config.tisCap !== undefined ? { tis_cap: config.tisCap } : {}),
    ...(config.miniBatchSize !== undefined ? { mini_batch_size: config.miniBatchSize } : {}),
    ...(config.maxLength !== undefined ? { max_length: config.maxLength } : {}),
    ...(config.threads !== undefined ? { threads: config.threads } : {}),
  };
}

export function grpoSearchAttributes(runId: string, config: Pick<GrpoConfig, 'base' | 'split'>, epoch: number): SearchAttributePair[] {
  return [
    { key: PauKind, value: 'grpo' },
    { key: PauRunId, value: runId },
    { key: PauModel, value: config.base },
    { key: PauSplit, value: config.split },
    { key: PauEpoch, value: String(epoch + 1) },
  ];
}

/**
 * Methods for one epoch, stratified by source: sources take turns (in a seeded order) and each gives its next
 * method from a seeded shuffle, so every source is represented as evenly as n allows. Pure.
 */
export function sampleStratified(methods: readonly { id: string; source: string }[], n: number, seed: number, epoch: number): string[] {
  const bySource = new Map<string, string[]>();
  for (const m of [...methods].sort((a, b) => a.id.localeCompare(b.id))) {
    const list = bySource.get(m.source) ?? [];
    list.push(m.id);
    bySource.set(m.source, list);
  }
  const shuffle = <T>(xs: T[], key: string): T[] =>
    xs
      .map((x, i) => ({ x, k: fnv1a(`${seed}|${epoch}|${key}|${i}`) }))
      .sort((a, b) => a.k - b.k)
      .map((e) => e.x);
  const sources = shuffle([...bySource.keys()].sort(), 'sources');
  const queues = new Map(sources.map((s) => [s, shuffle(bySource.get(s)!, s)]));
  const out: string[] = [];
  while (out.length < n) {
    let took = false;
    for (const s of sources) {
      const q = queues.get(s)!;
      if (q.length > 0 && out.length < n) {
        out.push(q.shift()!);
        took = true;
      }
    }
    if (!took) break;
  }
  return out;
}

const mean = (xs: readonly (number | null | undefined)[]): number | null => {
  const v = xs.filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
  return v.length === 0 ? null : v.reduce((a, b) => a + b, 0) / v.length;
};
export { mean as meanOf };

/** The critic's unparsable answers over the epoch's rollouts, and their share of the critic calls made. */
export function criticUnparsableFigures(critic: readonly { rated: number; unparsable: number }[]): {
  criticUnparsable: number;
  criticUnparsableShare: number | null;
} {
  const asked = critic.reduce((a, c) => a + c.rated, 0);
  const unparsable = critic.reduce((a, c) => a + c.unparsable, 0);
  return { criticUnparsable: unparsable, criticUnparsableShare: asked === 0 ? null : unparsable / asked };
}

/** The rollouts the critic left all unrated for a recorded reason, by reason (nothing when there are none). */
export function criticUnratedFigures(critic: readonly { rated: number; unrated?: number; unratedReason?: string }[]): Pick<GrpoEpochFigures, 'criticUnrated'> {
  const all = critic.filter((c) => c.rated > 0 && c.unrated === c.rated);
  if (all.length === 0) return {};
  const reasons: Record<string, number> = {};
  for (const c of all) {
    const why = (c.unratedReason ?? 'no reason recorded').slice(0, 200);
    reasons[why] = (reasons[why] ?? 0) + 1;
  }
  return { criticUnrated: { rollouts: all.length, reasons } };
}

/** Figures of a grpo-update's done metrics (history per step: kl, clip_frac, loss; docs/trainer.md). */
export function updateFigures(metrics: Record<string, unknown>, steps: number): GrpoEpochFigures['update'] {
  const history = Array.isArray(metrics.history) ? (metrics.history as Record<string, unknown>[]) : [];
  const num = (v: unknown) => (typeof v === 'number' ? v : null);
  return {
    steps,
    meanKl: mean(history.map((h) => num(h.kl))),
    finalLoss: num(history.at(-1)?.loss),
    meanClipFrac: mean(history.map((h) => num(h.clip_frac))),
    tokensPerS: num(metrics.tokens_per_s) ?? mean(history.map((h) => num(h.tokens_per_s))),
    trainS: num(metrics.train_s),
    droppedTooLong: num(metrics.dropped_too_long),
    longestTokens: num(metrics.longest_tokens),
    lengthCutMasked: sumOf(num(metrics.length_cut_eos_masked), num(metrics.length_cut_whole_masked)),
    outcomeTermAbs: num(metrics.outcome_term_abs_mean),
    stepTermAbs: num(metrics.step_term_abs_mean),
    rewardSpread: num(metrics.reward_spread_mean),
    zeroSpreadGroups: num(metrics.zero_spread_groups),
    allUnratedRollouts: num(metrics.all_unrated_rollouts),
    sampledTokens: num(metrics.sampled_policy_tokens),
    retokenisedTokens: num(metrics.retokenised_policy_tokens),
    samplerGap: num(metrics.sampler_abs_logprob_gap),
    samplerOutsideClip: num(metrics.sampler_outside_clip),
    tisCap: num(metrics.tis_cap),
  };
}

const grpoBoundsSchema = rangesSchema(GRPO_CONFIG_RANGES, ['methodsPerEpoch', 'group', 'epochs', 'temperature', 'codeMatchWeight', 'seed', 'evalEvery']).extend(
  {
    budgets: rangesSchema(BUDGET_RANGES),
  },
);

/** What keeps a GRPO run's config from running: a setting out of its range (`group must be ...`); empty: nothing. */
export function grpoConfigProblems(config: GrpoConfig): string[] {
  const problems = schemaProblems(grpoBoundsSchema, config);
  if (config.stdFloor !== undefined && config.advantageScale !== 'std') problems.push('stdFloor needs advantageScale std');
  return problems;
}

/** A GRPO run's runs.config as stored (checked at the fields every start writes). */
export const grpoConfigSchema = documentSchema<GrpoConfig>({
  ...runJudgeFieldsShape,
  base: z.string(),
  critic: z.string(),
  criticFormat: z.enum(CRITIC_FORMATS).optional(),
  judgeModel: z.string(),
  dataset: z.string(),
  split: z.string(),
  methodsPerEpoch: z.number(),
  group: z.number(),
  epochs: z.number(),
  seed: z.number(),
});

/** A GRPO run's runs.summary: each finished epoch's figures, by epoch (null: not finished), and how it ended. */
export interface GrpoRunSummary {
  epochs?: (GrpoEpochFigures | null)[];
  epochsDone?: number;
  lastCheckpointId?: string;
  failedEpoch?: number;
  stage?: string;
}
export const grpoRunSummarySchema = documentSchema<GrpoRunSummary>({
  epochs: z.array(z.looseObject({ epoch: z.number() }).nullable()).optional(),
});
