// The options of `pau rerun`: scripts/commands/rerun.ts.
import { z } from 'zod';
import { defineOptions, type VerbUsage } from '../lib/options';

export const rerunOptions = defineOptions({
  run: { schema: z.string().min(1).optional(), arg: 'RUN_ID', help: 'a run: continue it with its stored config (ended episodes are kept)' },
  failed: { schema: z.boolean().optional(), help: 'with --run: rerun only its failed episodes' },
});

export const verb: VerbUsage = {
  forms: [{ words: 'pau rerun WORKFLOW_ID' }, { words: 'pau rerun', options: rerunOptions }],
  notes: ['WORKFLOW_ID: reset a failed workflow to just before its first failure (history kept)'],
};
