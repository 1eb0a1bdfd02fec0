// The options of `pau dataset build | describe | show | export | load | list`: scripts/commands/dataset.ts
// (docs/datasets.md).
import { z } from 'zod';
import { SourceSplit } from '../../domain/dataset/config';
import { SOURCE_NAMES, type SourceName } from '../../domain/dataset/sources';
import { BATCH_SIZE_RANGE, CONCURRENCY_RANGE, RECORD_LIMIT_RANGE, SPLIT_SIZE_RANGE } from '../../domain/dataset/config';
import { METHOD_LIMIT_RANGE } from '../../domain/bench/configBounds';
import { realRange, wholeRange } from '../../domain/common/numberRange';
import { defineOptions, numberOption, type VerbUsage } from '../lib/options';

const SPLITS = ['train', 'validation', 'test'] as const;

/** `--split-scheme` presets: the paper-size proportional split, or whole sources per split. */
export const SPLIT_PRESETS = ['proportional', 'by-source', 'by-source-mbpp-official'] as const;

/** `test=humaneval,mbpp;official=mbpp;train=codealpaca` → { humaneval: 'test', mbpp: 'official', ... }. */
export function parseBySource(spec: string, ctx: z.RefinementCtx): Partial<Record<SourceName, SourceSplit>> {
  const out: Partial<Record<SourceName, SourceSplit>> = {};
  for (const part of spec
    .split(';')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [to, list] = part.split('=', 2).map((x) => x?.trim() ?? '');
    const split = SourceSplit.safeParse(to);
    if (!split.success || !list) {
      ctx.addIssue({ code: 'custom', message: `bad part ${JSON.stringify(part)}: expected test|validation|train|official=source,source` });
      return z.NEVER;
    }
    for (const src of list
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean)) {
      if (!(SOURCE_NAMES as readonly string[]).includes(src)) {
        ctx.addIssue({ code: 'custom', message: `unknown source ${JSON.stringify(src)} (known: ${SOURCE_NAMES.join(', ')})` });
        return z.NEVER;
      }
      if (split.data === 'official' && src !== 'mbpp') {
        ctx.addIssue({ code: 'custom', message: `only mbpp has an official split, not ${src}` });
        return z.NEVER;
      }
      out[src as SourceName] = split.data;
    }
  }
  return out;
}

export const buildOptions = defineOptions({
  name: { schema: z.string().default('pau-v1'), help: 'the dataset name' },
  sources: {
    schema: z
      .string()
      .transform((s) =>
        s
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean),
      )
      .pipe(z.array(z.enum(SOURCE_NAMES)).min(1))
      .optional(),
    arg: SOURCE_NAMES.join(','),
    help: 'the sources to load (default all)',
  },
  limit: { schema: numberOption(RECORD_LIMIT_RANGE).optional(), arg: 'N', help: 'only the first N records of each source' },
  seed: { schema: z.string().optional(), arg: 'S', help: "the build's seed (default pau-v1)" },
  test: { schema: numberOption(SPLIT_SIZE_RANGE).optional(), arg: 'N', help: 'test split size (default 741, as in the paper)' },
  validation: { schema: numberOption(SPLIT_SIZE_RANGE).optional(), arg: 'N', help: 'validation split size (default 100)' },
  'batch-size': { schema: numberOption(BATCH_SIZE_RANGE).optional(), arg: 'N', help: 'methods per sandbox batch (default 25)' },
  concurrency: { schema: numberOption(CONCURRENCY_RANGE).optional(), arg: 'N', help: 'batches in flight at once (default 4)' },
  codealpaca: { schema: z.enum(['auto', '20k', '2k']).optional(), help: 'which CodeAlpaca file (auto: the one present)' },
  'split-scheme': { schema: z.enum(SPLIT_PRESETS).optional(), help: 'proportional (stratified by source) or whole sources per split' },
  'split-by-source': {
    schema: z.string().transform(parseBySource).optional(),
    arg: '"test=humaneval,mbpp,cruxeval;train=codealpaca"',
    help: 'the split of each source (sources it does not name: train)',
  },
  'generate-inputs': { schema: z.enum(['on', 'off']).optional(), help: 'off: no typed generated held-out inputs' },
  'data-dir': { schema: z.string().min(1).optional(), arg: 'DIR', help: "where the source files are (default: this command's PAU_DATA_DIR)" },
});

export const describeOptions = defineOptions({
  model: { schema: z.string().min(1), arg: 'M', help: 'the model that writes the descriptions' },
  'coder-model': { schema: z.string().min(1).optional(), arg: 'M', help: 'the model that writes code from them (default: --model)' },
  split: { schema: z.enum([...SPLITS, 'all']).default('train'), help: 'the split whose methods are described' },
  threshold: { schema: numberOption(realRange(0, 1)).default(1), help: "keep a description when its code's code match is at least this" },
  limit: { schema: numberOption(METHOD_LIMIT_RANGE).optional(), arg: 'N', help: 'only the first N methods that need one' },
  window: { schema: numberOption(wholeRange(1, 64)).optional(), arg: 'N', help: 'methods in flight at once (default 4)' },
  force: { schema: z.boolean().optional(), help: 'describe again methods this model already tried' },
});

export const exportOptions = defineOptions({
  out: { schema: z.string().min(1), arg: 'F.jsonl.gz|F.jsonl|F.parquet', help: 'the file to write (its manifest beside it)' },
  format: { schema: z.enum(['jsonl', 'parquet']).optional(), help: 'the file format (default: from --out)' },
  split: { schema: z.enum(SPLITS).optional(), help: 'only this split' },
});

export const loadOptions = defineOptions({
  file: { schema: z.string().min(1).optional(), help: 'the dataset file to load (default datasets/pau-v1/pau-v1.jsonl.gz)' },
});

export const verb: VerbUsage = {
  forms: [
    { words: 'pau dataset build', options: buildOptions },
    { words: 'pau dataset describe <name>', options: describeOptions },
    { words: 'pau dataset show <name>' },
    { words: 'pau dataset export <name>', options: exportOptions },
    { words: 'pau dataset load', options: loadOptions },
    { words: 'pau dataset list' },
  ],
  notes: ['describe: reference descriptions for methods without a gold one, kept by code match (docs/datasets.md)'],
};
