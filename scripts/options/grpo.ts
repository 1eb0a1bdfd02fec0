// The options of `pau grpo train | report`: scripts/commands/grpo.ts (the run: docs/training.md).
import { CRITIC_FORMATS, DEFAULT_CRITIC_FORMAT } from '../../domain/training/criticPrompt';
import { z } from 'zod';
import { NAME_PATTERN } from '../../domain/training/checkpointIds';
import { DEFAULT_GRPO_REWARD, GRPO_EVAL_BUDGETS, GRPO_LR, GRPO_RANGES, GRPO_REWARDS } from '../../domain/training/grpo';
import { ADVANTAGE_SCALES } from '../../domain/training/trainerProtocol';
import { defineOptions, type VerbUsage } from '../lib/options';
import { commaList } from './runSelection';

const int = (min: number) => z.coerce.number().int().min(min);
const R = GRPO_RANGES;
const inRange = (r: { min: number; max: number }) => z.coerce.number().min(r.min).max(r.max);
const SPLITS = ['train', 'validation', 'test'] as const;

export const grpoTrainOptions = defineOptions({
  base: { schema: z.string().min(1), arg: 'M', help: 'the policy base model (local/<name>)' },
  critic: { schema: z.string().min(1).optional(), arg: 'M', help: 'the frozen critic that rates each exploration step (default: the base)' },
  'critic-format': { schema: z.enum(CRITIC_FORMATS).default(DEFAULT_CRITIC_FORMAT), help: "the critic's prompt format (docs/training.md)" },
  dataset: { schema: z.string().min(1).default('pau-v1'), help: 'the dataset' },
  split: { schema: z.enum(SPLITS).default('train'), help: 'the split the training methods come from' },
  'methods-per-epoch': { schema: int(1).default(4), arg: 'N', help: 'methods sampled per epoch (seeded, stratified by source)' },
  group: { schema: inRange(R.group).int().default(4), arg: 'G', help: `rollouts per method (the GRPO group; ${R.group.min}-${R.group.max})` },
  'rollout-window': { schema: int(1).optional(), arg: 'N', help: 'rollout episodes in flight at once (default 4)' },
  epochs: { schema: int(1).default(2), arg: 'N', help: 'epochs: rollouts, critic, update, checkpoint, evaluation' },
  'max-calls': { schema: inRange(R.maxCalls).int().default(4), arg: 'N', help: `a rollout's call budget (${R.maxCalls.min}-${R.maxCalls.max})` },
  'max-turns': { schema: int(1).optional(), arg: 'N', help: "a rollout's turn budget" },
  'max-tokens': { schema: int(16).optional(), arg: 'N', help: "the policy's tokens per reply" },
  temperature: { schema: z.coerce.number().gt(0).max(2).default(1), help: "the policy's sampling temperature" },
  'kl-beta': { schema: z.coerce.number().min(0).optional(), arg: 'B', help: 'weight of the KL term to the base (trainer default)' },
  'clip-eps': { schema: z.coerce.number().gt(0).lt(1).optional(), arg: 'E', help: 'the clipped ratio range (trainer default)' },
  lr: { schema: inRange(R.lr).optional(), arg: 'LR', help: `learning rate (default ${GRPO_LR}; ${R.lr.min}-${R.lr.max})` },
  'advantage-scale': {
    schema: z.enum(ADVANTAGE_SCALES).default('none'),
    help: "the group's divisor: none (Dr. GRPO, the default) or std (with --std-floor)",
  },
  'std-floor': {
    schema: inRange(R.stdFloor).optional(),
    arg: 'S',
    help: `with --advantage-scale std: the std's floor, the judge's resolution (${R.stdFloor.min}-${R.stdFloor.max})`,
  },
  'lora-rank': { schema: int(1).optional(), arg: 'R', help: 'LoRA rank (trainer default)' },
  'mini-batch-size': { schema: int(1).optional(), arg: 'N', help: 'rollouts per optimiser step (trainer default)' },
  'max-length': { schema: int(16).optional(), arg: 'N', help: "tokens per trained conversation (default: the base's serving context)" },
  threads: { schema: int(1).optional(), arg: 'N', help: "the trainer's CPU threads" },
  reward: { schema: z.enum(GRPO_REWARDS).default(DEFAULT_GRPO_REWARD), help: 'mix: steps and outcome; aac: steps; outcome: plain GRPO' },
  'code-match-weight': { schema: z.coerce.number().min(0).default(1), arg: 'W', help: 'outcome reward = judge score + W x code match on unseen inputs' },
  'eval-every': { schema: int(0).default(1), arg: 'N', help: 'evaluate the checkpoint beside the base every N epochs (and after the last)' },
  'eval-split': { schema: z.enum(SPLITS).default('validation'), help: 'the split the evaluation runs on' },
  'eval-budgets': {
    schema: z.enum(GRPO_EVAL_BUDGETS).default('training'),
    help: "the evaluation's budgets: training (the rollouts' calls, greedy: where the update acted) or benchmark (bench run's)",
  },
  'eval-limit': { schema: int(1).optional(), arg: 'N', help: 'only the first N validation methods (default: the whole split, as bench run)' },
  'eval-methods': { schema: commaList.optional(), arg: 'a,b', help: 'evaluate on these method ids' },
  methods: { schema: commaList.optional(), arg: 'a,b', help: 'train on these method ids (checked against --split)' },
  'judge-model': { schema: z.string().min(1).optional(), arg: 'M', help: 'the judge of rollouts and evaluations (default PAU_JUDGE_MODEL)' },
  'allow-unqualified-judge': {
    schema: z.boolean().optional(),
    help: 'train and evaluate with a judge that failed its judge card (recorded; the reports mark its scores)',
  },
  'allow-mixed-stacks': {
    schema: z.boolean().optional(),
    help: 'evaluate the checkpoint beside its base even when the two are served by different stacks (vLLM and llama.cpp; recorded, the report names each arm’s stack)',
  },
  'allow-self-judge': {
    schema: z.boolean().optional(),
    help: 'let a judge or critic that is the policy, its base or a checkpoint of it grade the rollouts (recorded in the config)',
  },
  seed: { schema: int(0).default(0), help: 'seed of method sampling and rollouts' },
  'run-id': { schema: z.string().regex(NAME_PATTERN).optional(), arg: 'ID', help: 'the run id (default: a new one)' },
  detach: { schema: z.boolean().optional(), help: 'start the run and exit' },
  'allow-test-split': { schema: z.boolean().optional(), help: 'train on test methods (refused otherwise)' },
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
