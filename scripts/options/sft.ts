// The options of `pau sft build | export | train | show | report`: scripts/commands/sft.ts (docs/training.md).
import { z } from 'zod';
import { SETTINGS } from '../../domain/episode/types';
import { NAME_PATTERN } from '../../domain/training/checkpointIds';
import { DEFAULT_SFT_THRESHOLDS, SFT_EXPORT_FORMATS } from '../../domain/training/sftData';
import { METHOD_LIMIT_RANGE, SAMPLES_RANGE, WINDOW_RANGE } from '../../domain/bench/configBounds';
import { realRange, wholeRange } from '../../domain/common/numberRange';
import { TRAINING_RANGES as T } from '../../domain/training/trainingRanges';
import { defineOptions, numberOption, type VerbUsage } from '../lib/options';
import { budgetOptions, flag, judgeModelOption, splitOption, trainerOptions } from '../lib/optionBuilders';
import { commaList } from './runSelection';

const name = z.string().regex(NAME_PATTERN, 'letters, digits, . _ - (at most 101)');
const settings = commaList.pipe(z.array(z.enum(SETTINGS)).min(1));

export const sftBuildOptions = defineOptions({
  teacher: { schema: z.string().min(1), arg: 'M', help: 'the model whose episodes become examples' },
  split: splitOption('train', 'the split the teacher runs on'),
  name: { schema: name.optional(), help: 'the data set name (default: from the teacher and split)' },
  dataset: { schema: z.string().min(1).default('pau-v1'), help: 'the dataset' },
  limit: { schema: numberOption(METHOD_LIMIT_RANGE).optional(), arg: 'N', help: 'only the first N methods' },
  samples: { schema: numberOption(SAMPLES_RANGE).default(1), arg: 'K', help: 'teacher episodes per method and setting' },
  settings: { schema: settings.default(['interactive']), arg: 'interactive,in-context', help: 'the settings the teacher runs in' },
  'min-score': {
    schema: numberOption(wholeRange(1, 5)).default(DEFAULT_SFT_THRESHOLDS.minScore),
    arg: 'S',
    help: 'keep episodes the judge scored at least this',
  },
  'min-code-match': {
    schema: numberOption(realRange(0, 1)).default(DEFAULT_SFT_THRESHOLDS.minCodeMatch),
    arg: 'X',
    help: 'keep episodes whose code match is at least this',
  },
  'keep-contradicting': flag('keep episodes whose description contradicts their own observations'),
  'judge-model': judgeModelOption("the judge of the teacher's episodes (default PAU_JUDGE_MODEL)", 'J'),
  'allow-self-judge': flag('let a judge that is the teacher, its base or a checkpoint of it filter the data'),
  ...budgetOptions("an episode's"),
  window: { schema: numberOption(WINDOW_RANGE).optional(), arg: 'N', help: 'episodes in flight at once' },
  detach: flag('start the build and exit'),
  'allow-test-split': flag('build from test methods (refused otherwise)'),
});

export const sftExportOptions = defineOptions({
  out: { schema: z.string().min(1), arg: 'F.jsonl', help: 'the file to write' },
  format: { schema: z.enum(SFT_EXPORT_FORMATS).default('openai'), help: 'OpenAI fine-tuning or TRL conversational JSONL' },
});

export const sftTrainOptions = defineOptions({
  data: { schema: name, arg: 'NAME', help: 'the SFT data set (sft build)' },
  base: { schema: z.string().min(1), arg: 'M', help: 'the base model (local/<name>)' },
  epochs: { schema: numberOption(T.epochs).optional(), arg: 'N', help: 'epochs over the data (trainer default)' },
  lr: { schema: numberOption(T.lr).optional(), arg: 'LR', help: 'learning rate (trainer default)' },
  'lora-rank': trainerOptions['lora-rank'],
  'lora-alpha': { schema: numberOption(T.loraAlpha).optional(), arg: 'A', help: 'LoRA alpha (trainer default)' },
  'max-steps': { schema: numberOption(T.maxSteps).optional(), arg: 'N', help: 'stop after N optimiser steps' },
  'batch-size': {
    schema: numberOption(T.batchSize).optional(),
    arg: 'N',
    help: 'conversations per optimiser step (all processes together); a multiple of PAU_TRAINER_PROCESSES uses every device',
  },
  'save-every': { schema: numberOption(T.saveEvery).optional(), arg: 'N', help: 'save (the point a crash resumes from) every N steps' },
  'max-length': trainerOptions['max-length'],
  seed: { schema: numberOption(T.seed).optional(), help: "the trainer's seed" },
  threads: trainerOptions.threads,
  'eval-dataset': { schema: z.string().min(1).default('pau-v1'), help: 'the dataset of the evaluation' },
  'eval-split': splitOption('validation', 'the split the checkpoint and its base are evaluated on'),
  'eval-limit': { schema: numberOption(METHOD_LIMIT_RANGE).optional(), arg: 'N', help: 'only the first N methods of the evaluation split' },
  'eval-settings': { schema: settings.default(['interactive', 'in-context']), arg: 'interactive,in-context', help: 'the settings of the evaluation' },
  'eval-samples': { schema: numberOption(SAMPLES_RANGE).default(1), arg: 'K', help: 'evaluation episodes per method, model and setting' },
  'judge-model': judgeModelOption('the judge of the evaluation (default PAU_JUDGE_MODEL)', 'J'),
  'allow-self-judge': flag('let a judge that is the base or a checkpoint of it score the evaluation'),
  'no-eval': flag('train and register the checkpoint only'),
  ...budgetOptions("an evaluation episode's"),
  'run-id': { schema: name.optional(), arg: 'ID', help: 'the run id (default: a new one)' },
  detach: flag('start the run and exit'),
  'allow-test-split': flag('train on data built from test methods (refused otherwise)'),
});

export const sftReportOptions = defineOptions({
  out: { schema: z.string().min(1).optional(), help: 'a folder, or F.html (default: reports/RUN.html)' },
});

export const verb: VerbUsage = {
  forms: [
    { words: 'pau sft build', options: sftBuildOptions },
    { words: 'pau sft export NAME', options: sftExportOptions },
    { words: 'pau sft train', options: sftTrainOptions },
    { words: 'pau sft show NAME' },
    { words: 'pau sft report RUN', options: sftReportOptions },
  ],
};
