// The options of the verbs that start benchmark runs (`bench run`, `schedule nightly`): which methods ×
// models × settings × samples, and who judges them. Spread into each verb's table (scripts/options/).
import { z } from 'zod';
import { SETTINGS } from '../../domain/episode/types';
import { METHOD_LIMIT_RANGE, SAMPLES_RANGE } from '../../domain/bench/configBounds';
import { numberOption } from '../lib/options';
import { flag, judgeModelOption, splitOption } from '../lib/optionBuilders';

/** `a,b, c` → ['a', 'b', 'c'] */
export const commaList = z.string().transform((s) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean),
);

/** Options for what a run covers and who judges it (spread into a verb's defineOptions). */
export const runSelectionFields = {
  split: splitOption('test', 'the split whose methods run'),
  models: { schema: commaList.pipe(z.array(z.string()).min(1, 'name at least one model')), arg: 'a,b', help: 'the agent models (docs/models.md)' },
  settings: {
    schema: commaList.pipe(z.array(z.enum(SETTINGS)).min(1)).default(['interactive', 'in-context']),
    arg: 'interactive,in-context',
    help: 'the settings each model runs in',
  },
  limit: { schema: numberOption(METHOD_LIMIT_RANGE).optional(), arg: 'N', help: 'only the first N methods of the split' },
  samples: { schema: numberOption(SAMPLES_RANGE).default(1), arg: 'K', help: 'episodes per method, model and setting' },
  judge: { schema: z.enum(['on', 'off']).default('on'), arg: 'on|off', help: 'off: do not judge the episodes' },
  'judge-model': judgeModelOption('the judge (default PAU_JUDGE_MODEL, else chosen by the agents: docs/judging.md)'),
  'allow-self-judge': flag('let a judge that is an agent, its base or a checkpoint of one score the run (recorded in the config)'),
  'allow-unqualified-judge': flag('judge with a judge whose card failed; the report marks its scores'),
};
