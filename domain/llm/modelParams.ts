// A model's request parameters: a registry entry's defaults (config/models.ts), an episode's, a run's or a
// judge's own. Here in domain/ because the pure run, episode and judge types carry them.
import { z } from 'zod';

/** Chat-completion parameters passed through to the endpoint (a subset is validated; others pass as-is). */
export const modelParamsSchema = z
  .object({
    temperature: z.number().min(0).max(2).optional(),
    top_p: z.number().min(0).max(1).optional(),
    max_tokens: z.number().int().positive().optional(),
    max_completion_tokens: z.number().int().positive().optional(),
    seed: z.number().int().optional(),
  })
  .catchall(z.unknown());
export type ModelParams = z.infer<typeof modelParamsSchema>;
