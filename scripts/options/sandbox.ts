// The options of `pau sandbox exec`: scripts/commands/sandbox.ts.
import { z } from 'zod';
import { MEMORY_MB_RANGE, TIMEOUT_MS_RANGE } from '../../domain/sandbox/schemas';
import { defineOptions, numberOption, type VerbUsage } from '../lib/options';

export const sandboxOptions = defineOptions({
  file: { schema: z.string({ error: 'is required' }).min(1), arg: 'F.py', help: 'the Python source holding the method' },
  entry: {
    schema: z.string({ error: 'is required' }).regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a Python identifier'),
    arg: 'NAME',
    help: 'the function to call',
  },
  calls: {
    schema: z.string({ error: 'is required' }),
    arg: 'JSON',
    help: 'a JSON list of calls: each a list of Python-literal argument strings, or one string of the whole argument list',
  },
  coverage: { schema: z.boolean().optional(), help: 'also report statement and branch coverage' },
  'timeout-ms': { schema: numberOption(TIMEOUT_MS_RANGE).optional(), arg: 'N', help: 'time limit of each call' },
  'memory-mb': { schema: numberOption(MEMORY_MB_RANGE).optional(), arg: 'N', help: 'memory limit of each call' },
  mode: {
    schema: z.enum(['auto', 'bwrap', 'seccomp', 'none']).optional(),
    arg: 'auto|bwrap|seccomp|none',
    help: 'isolation mode (docs/sandbox.md; default auto)',
  },
});

export const verb: VerbUsage = {
  forms: [{ words: 'pau sandbox exec', options: sandboxOptions }],
  notes: [`e.g. --calls '[["1", "2"], "[3, 1], key='a'"]'; prints one JSON object, exit 0 even when calls fail`],
};
