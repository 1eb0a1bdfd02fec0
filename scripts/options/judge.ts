// The options of `pau judge`: scripts/commands/judge.ts.
import { z } from 'zod';
import { wholeRange } from '../../domain/common/numberRange';
import { defineOptions, numberOption, type VerbUsage } from '../lib/options';

export const judgeOptions = defineOptions({
  run: { schema: z.string().min(1), arg: 'RUN_ID', help: 'the stored run to judge (its agents are not rerun)' },
  'judge-model': { schema: z.string().min(1), arg: 'M', help: 'the judge model' },
  'coder-model': { schema: z.string().min(1).optional(), arg: 'M', help: "the code writer (default: the run's, else the judge)" },
  force: { schema: z.boolean().optional(), help: 'judge again episodes this judge has judged' },
  window: { schema: numberOption(wholeRange(1, 200)).optional(), arg: 'N', help: 'episodes judged at once' },
  out: { schema: z.string().min(1).optional(), arg: 'DIR', help: 'where the report files go (default reports/)' },
  'allow-self-judge': {
    schema: z.boolean().optional(),
    help: "let a judge or coder that is one of the run's agents, its base or a checkpoint of it score the run (recorded in the run's config)",
  },
});

export const verb: VerbUsage = { forms: [{ words: 'pau judge', options: judgeOptions }] };
