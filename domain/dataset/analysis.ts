// What activities/dataset/analyze.py reports for one candidate (ast only; nothing executes): the boundary schema of its
// output, and the type the build's normalisation reads.
import { z } from 'zod';

export const Analysis = z.object({
  key: z.string().nullable(),
  ok: z.boolean(),
  reason: z.string().nullable(),
  detail: z.string(),
  entry_point: z.string().optional(),
  signature: z.string().optional(),
  code: z.string().optional(),
  docstring: z.string().nullable().optional(),
  imports: z.array(z.string()).optional(),
  inputs: z.array(z.string()).optional(),
  dropped_inputs: z.record(z.string(), z.number()).optional(),
  stripped: z.number().optional(),
  exact_hash: z.string().optional(),
  near_hash: z.string().optional(),
  /** For input generation when the source gives no example call (domain/inputs/generator.ts). */
  params: z
    .array(
      z.object({
        name: z.string(),
        kind: z.enum(['positional', 'keyword', 'varargs', 'varkw']),
        annotation: z.string().nullable(),
        default: z.string().nullable(),
      }),
    )
    .optional(),
  hints: z.record(z.string(), z.array(z.string())).optional(),
  literals: z.object({ ints: z.array(z.number()), strs: z.array(z.string()) }).optional(),
});
export type Analysis = z.infer<typeof Analysis>;
