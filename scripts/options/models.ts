// The options of `pau models`: scripts/commands/models.ts.
import { z } from 'zod';
import { defineOptions, type VerbUsage } from '../lib/options';

export const modelsOptions = defineOptions({
  force: { schema: z.boolean().optional(), help: 'install: download and verify again even when the file is present' },
});

export const verb: VerbUsage = {
  forms: [{ words: 'pau models install [NAME...]', options: modelsOptions }, { words: 'pau models serve|stop [NAME...]' }, { words: 'pau models status' }],
  notes: [
    'install: download, assemble and verify built-in models (default: all three)',
    'serve: start llama.cpp servers (default: the local models the configuration uses); stop: stop them; status: files and servers',
    'NAME: a registry name (local/qwen2.5-coder-0.5b) or a built-in short name (qwen2.5-coder-0.5b)',
  ],
};
