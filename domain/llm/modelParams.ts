// A model's request parameters: a registry entry's defaults (config/models.ts), an episode's, a run's or a
// judge's own. Here in domain/ because the pure run, episode and judge types carry them.
import { z } from 'zod';
import { rangeSchema, realRange, wholeRange } from '../common/numberRange';

/** A sampling temperature: the OpenAI API's range. */
export const TEMPERATURE_RANGE = realRange(0, 2);
/**
 * A run's sampling seed: a non-negative 32-bit integer, which every provider here takes (llama.cpp reads a
 * negative seed as "random", the opposite of what a seed is given for).
 */
export const SEED_RANGE = wholeRange(0, 2 ** 31 - 1);

/** Chat-completion parameters passed through to the endpoint (a subset is validated; others pass as-is). */
export const modelParamsSchema = z
  .object({
    temperature: rangeSchema(TEMPERATURE_RANGE).optional(),
    top_p: z.number().min(0).max(1).optional(),
    max_tokens: z.number().int().positive().optional(),
    max_completion_tokens: z.number().int().positive().optional(),
    seed: z.number().int().optional(),
  })
  .catchall(z.unknown());
export type ModelParams = z.infer<typeof modelParamsSchema>;
