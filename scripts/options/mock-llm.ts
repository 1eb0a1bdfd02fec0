// The options of `pau mock-llm`: scripts/commands/mock-llm.ts.
import { z } from 'zod';
import { defineOptions, type VerbUsage } from '../lib/options';

export const mockLlmOptions = defineOptions({
  port: { schema: z.coerce.number().int().min(0).max(65535).default(8399), help: 'the port to listen on' },
  host: { schema: z.string().default('127.0.0.1'), help: 'the address to listen on' },
  'latency-ms': { schema: z.coerce.number().int().min(0).default(0), help: 'delay every answer by this much' },
});

export const verb: VerbUsage = {
  forms: [{ words: 'pau mock-llm', options: mockLlmOptions }],
  notes: ['the scripted model server alone (an OpenAI-compatible endpoint; not a real LLM)'],
};
