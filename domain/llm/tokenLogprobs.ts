// Token log-probabilities as the OpenAI wire sends them (`choices[0].logprobs.content`), when a request asks
// for them (`logprobs: true, top_logprobs: k`): llama.cpp, vLLM and OpenAI's non-reasoning models do.
import { z } from 'zod';

/** One generated token with its top alternatives. */
export const tokenLogprobSchema = z.object({
  token: z.string(),
  logprob: z.number(),
  top_logprobs: z.array(z.object({ token: z.string(), logprob: z.number() })).default([]),
});
export type TokenLogprob = z.infer<typeof tokenLogprobSchema>;
