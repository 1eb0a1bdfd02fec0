// The options of `pau calibrate` (the suite, the judge card, the critic card): scripts/commands/calibrate.ts.
import { z } from 'zod';
import { DEFAULT_CODER_SAMPLES, MAX_CODER_SAMPLES } from '../../domain/judge/mbrExec';
import { DEFAULT_THRESHOLDS } from '../../domain/judge/card';
import { DEFAULT_CRITIC_THRESHOLDS } from '../../domain/training/criticCard';
import { DEFAULT_ON_POLICY_THRESHOLDS } from '../../domain/training/onPolicyCard';
import { GRPO_RANGES, TRAINING_RANGES } from '../../domain/training/trainingRanges';
import { BUDGET_RANGES } from '../../domain/episode/bounds';
import { CRITIC_FORMATS, DEFAULT_CRITIC_FORMAT } from '../../domain/training/criticPrompt';
import { DEFAULT_JUDGE_FORMAT, JUDGE_FORMATS, judgeFormatError } from '../../domain/judge/judgePrompt';
import { METHOD_LIMIT_RANGE } from '../../domain/bench/configBounds';
import { wholeRange } from '../../domain/common/numberRange';
import { defineOptions, numberOption, type VerbUsage } from '../lib/options';

const SPLITS = ['train', 'validation', 'test'] as const;
/** Methods or episodes in a card or the ladder, and the fewest one may qualify on: each costs model calls. */
const CARD_SIZE = wholeRange(2, 500);
const CARD_MINIMUM = wholeRange(1, 500);
/** Leaving out the first N of a split's methods or a pick order's episodes (a confirming card). */
const SKIP = wholeRange(0, METHOD_LIMIT_RANGE.max);
/** Methods or episodes in flight at once: each holds a model slot (the suite: a sandbox batch). */
const SUITE_WINDOW = wholeRange(1, 50);
const CARD_WINDOW = wholeRange(1, 20);

export const calibrateOptions = defineOptions({
  dataset: { schema: z.string().min(1).default('pau-v1'), help: 'the dataset' },
  split: { schema: z.string().min(1).default('test'), help: 'the split whose methods are checked' },
  limit: { schema: numberOption(METHOD_LIMIT_RANGE).optional(), arg: 'N', help: 'only the first N methods' },
  window: { schema: numberOption(SUITE_WINDOW).optional(), arg: 'N', help: 'methods in flight at once (default 4)' },
  'run-id': { schema: z.string().min(1).optional(), arg: 'ID', help: 'the calibration run id (default: a new one)' },
});

export const judgeCardOptions = defineOptions({
  judge: { schema: z.string().min(1), arg: 'M', help: 'the judge model to qualify' },
  coder: { schema: z.string().min(1).optional(), arg: 'C', help: 'the code writer to qualify (default: the judge)' },
  methods: { schema: numberOption(CARD_SIZE).default(DEFAULT_THRESHOLDS.minMethods), arg: 'N', help: 'methods in the card' },
  dataset: { schema: z.string().min(1).default('pau-v1'), help: 'the dataset' },
  split: { schema: z.enum(SPLITS).default('validation'), help: 'the split the methods come from' },
  window: { schema: numberOption(CARD_WINDOW).default(2), arg: 'N', help: 'methods in flight at once' },
  force: { schema: z.boolean().default(false), help: 'compute the card again even when one is stored' },
  'min-methods': { schema: numberOption(CARD_MINIMUM).optional(), arg: 'N', help: 'the fewest methods a card may qualify on (threshold override)' },
  format: {
    schema: z.enum(JUDGE_FORMATS, { error: (iss) => judgeFormatError(iss.input) }).default(DEFAULT_JUDGE_FORMAT),
    help: "the judge's prompt format (docs/judging.md)",
  },
  skip: { schema: numberOption(SKIP).default(0), arg: 'N', help: 'leave out the first N methods of the split' },
  'code-all-rungs': {
    schema: z.boolean().default(false),
    help: 'the coder writes code from near-miss and wrong too (more score-vs-code-match pairs; twice the coder time)',
  },
  'coder-samples': {
    schema: numberOption(wholeRange(1, MAX_CODER_SAMPLES)).default(DEFAULT_CODER_SAMPLES),
    arg: 'K',
    help: 'programs the coder writes per description, MBR-exec keeping the one the others agree with (docs/judging.md)',
  },
  ship: {
    schema: z.boolean().default(false),
    help: 'write the card into datasets/<dataset>/judge-cards/ to ship with the benchmark (npm start verifies it on a sample)',
  },
  shipped: {
    schema: z.boolean().default(false),
    help: 'check the card shipped with the benchmark on a sample instead of computing one (what npm start does); exit 0 when verified and qualified',
  },
  'ship-dir': {
    schema: z.string().min(1).optional(),
    arg: 'DIR',
    help: 'where --ship writes the card and --shipped reads it (default datasets/<dataset>/judge-cards/)',
  },
});

export const criticCardOptions = defineOptions({
  critic: { schema: z.string().min(1), arg: 'M', help: 'the critic model to qualify' },
  run: { schema: z.string().min(1).optional(), arg: 'RUN', help: "rate this benchmark run's episodes (its dataset and split)" },
  dataset: { schema: z.string().min(1).default('pau-v1'), help: 'the dataset (without --run)' },
  split: { schema: z.enum(SPLITS).default('validation'), help: "the split whose benchmark runs' episodes are rated (without --run)" },
  episodes: {
    schema: numberOption(CARD_SIZE).default(DEFAULT_CRITIC_THRESHOLDS.minEpisodes),
    arg: 'N',
    help: 'recorded episodes in the card',
  },
  window: { schema: numberOption(CARD_WINDOW).default(2), arg: 'N', help: 'episodes in flight at once' },
  force: { schema: z.boolean().default(false), help: 'compute the card again even when one is stored' },
  'min-episodes': {
    schema: numberOption(CARD_MINIMUM).optional(),
    arg: 'N',
    help: 'the fewest paired episodes a card may qualify on (threshold override)',
  },
  format: { schema: z.enum(CRITIC_FORMATS).default(DEFAULT_CRITIC_FORMAT), help: "the critic's prompt format (docs/training.md)" },
  skip: { schema: numberOption(SKIP).default(0), arg: 'N', help: 'leave out the first N episodes of the pick order (a confirming card)' },
});

/** Methods of an on-policy card: at least 2, so each can lend its privileged information to another. */
const ON_POLICY_METHODS = wholeRange(2, 500);

export const onPolicyCardOptions = defineOptions({
  'on-policy': { schema: z.boolean().default(false), help: "score critics on the policy's own rollouts (this form)" },
  policy: { schema: z.string().min(1), arg: 'M', help: "the policy whose rollouts are rated (a GRPO run's --base)" },
  critic: {
    schema: z.array(z.string().min(1)).default([]),
    arg: 'M',
    help: 'a critic scored beside exec and the free rule (always on the card): a model, or exec; repeat for more',
  },
  format: {
    schema: z.array(z.enum(CRITIC_FORMATS)).default([DEFAULT_CRITIC_FORMAT]),
    help: "each model critic's prompt format (docs/training.md); repeat for both",
  },
  methods: {
    schema: numberOption(ON_POLICY_METHODS).default(20),
    arg: 'N',
    help: 'training methods, sampled as a GRPO first epoch (seeded, stratified by source)',
  },
  group: { schema: numberOption(GRPO_RANGES.group).default(4), arg: 'G', help: 'rollouts per method' },
  dataset: { schema: z.string().min(1).default('pau-v1'), help: 'the dataset' },
  split: { schema: z.enum(SPLITS).default('train'), help: 'the split the methods come from' },
  'judge-model': { schema: z.string().min(1).optional(), arg: 'M', help: 'the judge of the rollouts (their code match; default PAU_JUDGE_MODEL)' },
  seed: { schema: numberOption(TRAINING_RANGES.seed).default(0), help: "seed of the methods' sample and the rollouts (a GRPO run's --seed)" },
  'max-calls': { schema: numberOption(BUDGET_RANGES.maxCalls).default(4), arg: 'N', help: "a rollout's call budget" },
  'max-turns': { schema: numberOption(BUDGET_RANGES.maxTurns).optional(), arg: 'N', help: "a rollout's turn budget" },
  'max-tokens': { schema: numberOption(GRPO_RANGES.maxTokens).optional(), arg: 'N', help: "the policy's tokens per reply" },
  temperature: { schema: numberOption(GRPO_RANGES.temperature).default(1), help: "the policy's sampling temperature" },
  'rollout-window': { schema: numberOption(GRPO_RANGES.rolloutWindow).optional(), arg: 'N', help: 'rollout episodes in flight at once (default 4)' },
  window: { schema: numberOption(CARD_WINDOW).default(2), arg: 'N', help: 'rollouts rated at once in each critic pass' },
  force: { schema: z.boolean().default(false), help: 'rate every rollout again (the rollouts are kept)' },
  'min-groups': {
    schema: numberOption(CARD_MINIMUM).optional(),
    arg: 'N',
    help: `the fewest groups with spread in code match rho may rest on (threshold override; default ${DEFAULT_ON_POLICY_THRESHOLDS.minGroups})`,
  },
});

export const verb: VerbUsage = {
  forms: [
    { words: 'pau calibrate', options: calibrateOptions },
    { words: 'pau calibrate judge', options: judgeCardOptions },
    { words: 'pau calibrate critic', options: criticCardOptions },
    { words: 'pau calibrate critic --on-policy', options: onPolicyCardOptions },
  ],
  notes: [
    'calibrate: code match of each original, its mutants, constant and identity functions (no judge model)',
    'judge: the judge card that qualifies a judge and a coder (its "monotone ladder" replaced the retired `calibrate ladder`)',
    "critic: the critic card: the GRPO critic rates recorded episodes' steps, new behaviour above repeated or uninformative calls",
    "critic --on-policy: the on-policy critic card: every critic (exec, the free rule, each model in each format) on the policy's own rollouts, scored against what each step ruled out",
  ],
};
