// The options of `pau calibrate` (the suite, the judge card, the critic card): scripts/commands/calibrate.ts.
import { z } from 'zod';
import { DEFAULT_CODER_SAMPLES, MAX_CODER_SAMPLES } from '../../domain/judge/mbrExec';
import { DEFAULT_THRESHOLDS } from '../../domain/judge/card';
import { DEFAULT_CRITIC_THRESHOLDS } from '../../domain/training/criticCard';
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

export const verb: VerbUsage = {
  forms: [
    { words: 'pau calibrate', options: calibrateOptions },
    { words: 'pau calibrate judge', options: judgeCardOptions },
    { words: 'pau calibrate critic', options: criticCardOptions },
  ],
  notes: [
    'calibrate: code match of each original, its mutants, constant and identity functions (no judge model)',
    'judge: the judge card that qualifies a judge and a coder (its "monotone ladder" replaced the retired `calibrate ladder`)',
    "critic: the critic card: the GRPO critic rates recorded episodes' steps, new behaviour above repeated or uninformative calls",
  ],
};
