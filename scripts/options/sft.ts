// The options of `pau sft build | export | train | show | report`: scripts/commands/sft.ts (docs/training.md).
import { z } from 'zod';
import { SETTINGS } from '../../domain/episode/types';
import { NAME_PATTERN } from '../../domain/training/checkpointIds';
import { DEFAULT_SFT_THRESHOLDS, SFT_EXPORT_FORMATS } from '../../domain/training/sftData';
import { defineOptions, type VerbUsage } from '../lib/options';
import { commaList } from './runSelection';

const int = (min: number) => z.coerce.number().int().min(min);
const name = z.string().regex(NAME_PATTERN, 'letters, digits, . _ - (at most 101)');
const settings = commaList.pipe(z.array(z.enum(SETTINGS)).min(1));
const SPLITS = ['train', 'validation', 'test'] as const;

export const sftBuildOptions = defineOptions({
  teacher: { schema: z.string().min(1), arg: 'M', help: 'the model whose episodes become examples' },
  split: { schema: z.enum(SPLITS).default('train'), help: 'the split the teacher runs on' },
  name: { schema: name.optional(), help: 'the data set name (default: from the teacher and split)' },
  dataset: { schema: z.string().min(1).default('pau-v1'), help: 'the dataset' },
  limit: { schema: int(1).optional(), arg: 'N', help: 'only the first N methods' },
  samples: { schema: int(1).default(1), arg: 'K', help: 'teacher episodes per method and setting' },
  settings: { schema: settings.default(['interactive']), arg: 'interactive,in-context', help: 'the settings the teacher runs in' },
  'min-score': {
    schema: z.coerce.number().int().min(1).max(5).default(DEFAULT_SFT_THRESHOLDS.minScore),
    arg: 'S',
    help: 'keep episodes the judge scored at least this',
  },
  'min-code-match': {
    schema: z.coerce.number().min(0).max(1).default(DEFAULT_SFT_THRESHOLDS.minCodeMatch),
    arg: 'X',
    help: 'keep episodes whose code match is at least this',
  },
  'keep-contradicting': { schema: z.boolean().optional(), help: 'keep episodes whose description contradicts their own observations' },
  'judge-model': { schema: z.string().min(1).optional(), arg: 'J', help: "the judge of the teacher's episodes (default PAU_JUDGE_MODEL)" },
  'allow-self-judge': { schema: z.boolean().optional(), help: 'let a judge that is the teacher, its base or a checkpoint of it filter the data' },
  'max-calls': { schema: int(1).optional(), arg: 'N', help: "an episode's call budget" },
  'max-turns': { schema: int(1).optional(), arg: 'N', help: "an episode's turn budget" },
  window: { schema: int(1).optional(), arg: 'N', help: 'episodes in flight at once' },
  detach: { schema: z.boolean().optional(), help: 'start the build and exit' },
  'allow-test-split': { schema: z.boolean().optional(), help: 'build from test methods (refused otherwise)' },
});

export const sftExportOptions = defineOptions({
  out: { schema: z.string().min(1), arg: 'F.jsonl', help: 'the file to write' },
  format: { schema: z.enum(SFT_EXPORT_FORMATS).default('openai'), help: 'OpenAI fine-tuning or TRL conversational JSONL' },
});

export const sftTrainOptions = defineOptions({
  data: { schema: name, arg: 'NAME', help: 'the SFT data set (sft build)' },
  base: { schema: z.string().min(1), arg: 'M', help: 'the base model (local/<name>)' },
  epochs: { schema: z.coerce.number().positive().optional(), arg: 'N', help: 'epochs over the data (trainer default)' },
  lr: { schema: z.coerce.number().positive().optional(), arg: 'LR', help: 'learning rate (trainer default)' },
  'lora-rank': { schema: int(1).optional(), arg: 'R', help: 'LoRA rank (trainer default)' },
  'lora-alpha': { schema: z.coerce.number().positive().optional(), arg: 'A', help: 'LoRA alpha (trainer default)' },
  'max-steps': { schema: int(1).optional(), arg: 'N', help: 'stop after N optimiser steps' },
  'batch-size': {
    schema: int(1).optional(),
    arg: 'N',
    help: 'conversations per optimiser step (all processes together); a multiple of PAU_TRAINER_PROCESSES uses every device',
  },
  'save-every': { schema: int(1).optional(), arg: 'N', help: 'save (the point a crash resumes from) every N steps' },
  'max-length': { schema: int(16).optional(), arg: 'N', help: "tokens per trained conversation (default: the base's serving context)" },
  seed: { schema: int(0).optional(), help: "the trainer's seed" },
  threads: { schema: int(1).optional(), arg: 'N', help: "the trainer's CPU threads" },
  'eval-dataset': { schema: z.string().min(1).default('pau-v1'), help: 'the dataset of the evaluation' },
  'eval-split': { schema: z.enum(SPLITS).default('validation'), help: 'the split the checkpoint and its base are evaluated on' },
  'eval-limit': { schema: int(1).optional(), arg: 'N', help: 'only the first N methods of the evaluation split' },
  'eval-settings': { schema: settings.default(['interactive', 'in-context']), arg: 'interactive,in-context', help: 'the settings of the evaluation' },
  'eval-samples': { schema: int(1).default(1), arg: 'K', help: 'evaluation episodes per method, model and setting' },
  'judge-model': { schema: z.string().min(1).optional(), arg: 'J', help: 'the judge of the evaluation (default PAU_JUDGE_MODEL)' },
  'allow-self-judge': { schema: z.boolean().optional(), help: 'let a judge that is the base or a checkpoint of it score the evaluation' },
  'no-eval': { schema: z.boolean().optional(), help: 'train and register the checkpoint only' },
  'max-calls': { schema: int(1).optional(), arg: 'N', help: "an evaluation episode's call budget" },
  'max-turns': { schema: int(1).optional(), arg: 'N', help: "an evaluation episode's turn budget" },
  'run-id': { schema: name.optional(), arg: 'ID', help: 'the run id (default: a new one)' },
  detach: { schema: z.boolean().optional(), help: 'start the run and exit' },
  'allow-test-split': { schema: z.boolean().optional(), help: 'train on data built from test methods (refused otherwise)' },
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
