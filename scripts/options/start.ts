// The options of `npm start` (`pau start`): scripts/commands/start.ts.
import { z } from 'zod';
import { defineOptions, type VerbUsage } from '../lib/options';

export const startOptions = defineOptions({
  once: { schema: z.boolean().optional(), help: 'exit when the main job is done instead of keeping the UI up' },
});

export const verb: VerbUsage = { forms: [{ words: 'pau start', options: startOptions }] };
