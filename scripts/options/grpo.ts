// The options of `pau grpo train | report`: scripts/commands/grpo.ts (the run: docs/training.md).
import { CRITIC_FORMATS, DEFAULT_CRITIC_FORMAT } from '../../domain/training/criticPrompt';
import { z } from 'zod';
import { NAME_PATTERN } from '../../domain/training/checkpointIds';
import { DEFAULT_GRPO_REWARD, GRPO_EVAL_BUDGETS, GRPO_LR, GRPO_REWARDS } from '../../domain/training/grpo';
import { GRPO_RANGES as R, TRAINING_RANGES as T } from '../../domain/training/trainingRanges';
import { ADVANTAGE_SCALES } from '../../domain/training/trainerProtocol';
import { defineOptions, numberOption, type VerbUsage } from '../lib/options';
import { budgetOptions, flag, judgeModelOption, splitOption, trainerOptions } from '../lib/optionBuilders';
import { commaList } from './runSelection';

export const grpoTrainOptions = defineOptions({
  base: { schema: z.string().min(1), arg: 'M', help: 'the policy base model (local/<name>)' },
  critic: {
    schema: z.string().min(1).optional(),
    arg: 'M',
    help: 'the frozen critic that rates each exploration step: a model, or exec (the method run in the sandbox; docs/training.md); default: the base',
  },
  'critic-format': { schema: z.enum(CRITIC_FORMATS).default(DEFAULT_CRITIC_FORMAT), help: "the critic's prompt format (docs/training.md)" },
  dataset: { schema: z.string().min(1).default('pau-v1'), help: 'the dataset' },
  split: splitOption('train', 'the split the training methods come from'),
  'methods-per-epoch': { schema: numberOption(R.methodsPerEpoch).default(4), arg: 'N', help: 'methods sampled per epoch (seeded, stratified by source)' },
  group: { schema: numberOption(R.group).default(4), arg: 'G', help: 'rollouts per method (the GRPO group)' },
  'rollout-window': { schema: numberOption(R.rolloutWindow).optional(), arg: 'N', help: 'rollout episodes in flight at once (default 4)' },
  epochs: { schema: numberOption(R.epochs).default(2), arg: 'N', help: 'epochs: rollouts, critic, update, checkpoint, evaluation' },
  ...budgetOptions("a rollout's", 4),
  'max-tokens': { schema: numberOption(R.maxTokens).optional(), arg: 'N', help: "the policy's tokens per reply" },
  temperature: { schema: numberOption(R.temperature).default(1), help: "the policy's sampling temperature" },
  'kl-beta': { schema: numberOption(R.klBeta).optional(), arg: 'B', help: 'weight of the KL term to the base (trainer default)' },
  'tis-cap': {
    schema: numberOption(R.tisCap).optional(),
    arg: 'C',
    help: "weigh each sampled token by min(trainer / sampler probability, C), from the server's log-probs (default: no correction)",
  },
  'clip-eps': { schema: numberOption(R.clipEps).optional(), arg: 'E', help: 'the clipped ratio range (trainer default)' },
  lr: { schema: numberOption(R.lr).optional(), arg: 'LR', help: `learning rate (default ${GRPO_LR})` },
  'advantage-scale': {
    schema: z.enum(ADVANTAGE_SCALES).default('none'),
    help: "the group's divisor: none (Dr. GRPO, the default) or std (with --std-floor)",
  },
  'std-floor': {
    schema: numberOption(R.stdFloor).optional(),
    arg: 'S',
    help: "with --advantage-scale std: the std's floor, the judge's resolution",
  },
  'lora-rank': trainerOptions['lora-rank'],
  'mini-batch-size': { schema: numberOption(T.batchSize).optional(), arg: 'N', help: 'rollouts per optimiser step (trainer default)' },
  'max-length': trainerOptions['max-length'],
  threads: trainerOptions.threads,
  reward: { schema: z.enum(GRPO_REWARDS).default(DEFAULT_GRPO_REWARD), help: 'mix: steps and outcome; aac: steps; outcome: plain GRPO' },
  'code-match-weight': { schema: numberOption(R.codeMatchWeight).default(1), arg: 'W', help: 'outcome reward = judge score + W x code match on unseen inputs' },
  'eval-every': { schema: numberOption(R.evalEvery).default(1), arg: 'N', help: 'evaluate the checkpoint beside the base every N epochs (and after the last)' },
  'eval-split': splitOption('validation', 'the split the evaluation runs on'),
  'eval-budgets': {
    schema: z.enum(GRPO_EVAL_BUDGETS).default('training'),
    help: "the evaluation's budgets: training (the rollouts' calls, greedy: where the update acted) or benchmark (bench run's)",
  },
  'eval-limit': {
    schema: numberOption(R.evalLimit).optional(),
    arg: 'N',
    help: 'only the first N validation methods (default: the whole split, as bench run)',
  },
  'eval-methods': { schema: commaList.optional(), arg: 'a,b', help: 'evaluate on these method ids' },
  methods: { schema: commaList.optional(), arg: 'a,b', help: 'train on these method ids (checked against --split)' },
  'judge-model': judgeModelOption('the judge of rollouts and evaluations (default PAU_JUDGE_MODEL)'),
  'allow-unqualified-judge': flag('train and evaluate with a judge that failed its judge card (recorded; the reports mark its scores)'),
  'allow-mixed-stacks': flag(
    'evaluate the checkpoint beside its base even when the two are served by different stacks (vLLM and llama.cpp; recorded, the report names each arm’s stack)',
  ),
  'allow-self-judge': flag('let a judge or critic that is the policy, its base or a checkpoint of it grade the rollouts (recorded in the config)'),
  seed: { schema: numberOption(T.seed).default(0), help: 'seed of method sampling and rollouts' },
  'run-id': { schema: z.string().regex(NAME_PATTERN).optional(), arg: 'ID', help: 'the run id (default: a new one)' },
  detach: flag('start the run and exit'),
  'allow-test-split': flag('train on test methods (refused otherwise)'),
});

export const grpoReportOptions = defineOptions({
  out: { schema: z.string().min(1).optional(), help: 'a folder, or F.html (default: reports/RUN.html)' },
  compare: { schema: commaList.optional(), help: "other GRPO runs (other reward modes): this run's checkpoints paired against theirs on validation" },
});

export const verb: VerbUsage = {
  forms: [
    { words: 'pau grpo train', options: grpoTrainOptions },
    { words: 'pau grpo report RUN', options: grpoReportOptions },
  ],
};
