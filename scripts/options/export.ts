// The options of `pau export inspect`: scripts/commands/export.ts.
import { z } from 'zod';
import { defineOptions, type VerbUsage } from '../lib/options';

export const exportOptions = defineOptions({
  out: { schema: z.string().min(1).optional(), arg: '<dir>', help: 'where the logs go (default reports/<runId>.inspect/)' },
});

export const verb: VerbUsage = { forms: [{ words: 'pau export inspect <runId>', options: exportOptions }] };
