// The options of `pau runs`: scripts/commands/runs.ts.
import { z } from 'zod';
import { wholeRange } from '../../domain/common/numberRange';
import { defineOptions, numberOption, type VerbUsage } from '../lib/options';

export const runsListOptions = defineOptions({
  failed: { schema: z.boolean().optional(), help: 'only runs with failures' },
  limit: { schema: numberOption(wholeRange(1, 10_000)).optional(), arg: 'N', help: 'the newest N runs (default 50)' },
});

export const runsShowOptions = defineOptions({
  all: { schema: z.boolean().optional(), help: 'list every episode, not only those not completed' },
  episode: { schema: z.string().min(1).optional(), arg: 'EPISODE_ID', help: "one episode's transcript (the full id or the part after RUN_ID/)" },
  full: { schema: z.boolean().optional(), help: 'with --episode: the system prompt too' },
});

export const runsCancelOptions = defineOptions({
  wait: { schema: numberOption(wholeRange(0, 3_600, 'seconds')).default(120), arg: 'SECONDS', help: 'seconds to wait for the run to stop' },
});

export const verb: VerbUsage = {
  forms: [
    { words: 'pau runs list', options: runsListOptions },
    { words: 'pau runs show RUN_ID', options: runsShowOptions },
    { words: 'pau runs cancel RUN_ID', options: runsCancelOptions },
  ],
};
