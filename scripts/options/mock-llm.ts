// The options of `pau mock-llm`: scripts/commands/mock-llm.ts.
import { z } from 'zod';
import { PORT_RANGE, wholeRange } from '../../domain/common/numberRange';
import { defineOptions, numberOption, type VerbUsage } from '../lib/options';

export const mockLlmOptions = defineOptions({
  port: { schema: numberOption(PORT_RANGE).default(8399), help: 'the port to listen on' },
  host: { schema: z.string().default('127.0.0.1'), help: 'the address to listen on' },
  // Up to the longest request timeout a model entry takes by default (10 minutes).
  'latency-ms': { schema: numberOption(wholeRange(0, 600_000)).default(0), help: 'delay every answer by this much' },
});

export const verb: VerbUsage = {
  forms: [{ words: 'pau mock-llm', options: mockLlmOptions }],
  notes: ['the scripted model server alone (an OpenAI-compatible endpoint; not a real LLM)'],
};
