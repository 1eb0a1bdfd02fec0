// What the server sampled for one policy turn: the token ids and each one's log-prob, read from the turn's
// stored chat completion (llm_calls.response), so the trainer trains those ids instead of re-tokenising the
// text (trainer/pau_trainer/chat.py, "Sampled ids"). Pure.
//
// llama.cpp's chat completion returns, with `logprobs`, each generated token's `id` beside its text; vLLM
// returns ids as the token text "token_id:N" when asked (`return_tokens_as_token_ids`). An endpoint that
// returns neither (the scripted mock, a remote API) has none recorded: its turns are re-tokenised, counted.
import { z } from 'zod';

export const sampledTokensSchema = z.strictObject({
  ids: z.array(z.number().int().min(0)).min(1),
  logprobs: z.array(z.number().max(0)).min(1),
});
export type SampledTokens = z.infer<typeof sampledTokensSchema>;

/** Request params that ask the policy's server for the sampled ids and their log-probs (one alternative: the cheapest list). */
export const SAMPLED_TOKEN_PARAMS = { logprobs: true, top_logprobs: 1, return_tokens_as_token_ids: true } as const;

const entrySchema = z.looseObject({ token: z.string().optional(), id: z.number().int().min(0).optional(), logprob: z.number() });
const responseSchema = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        logprobs: z
          .looseObject({ content: z.array(entrySchema).nullable().optional() })
          .nullable()
          .optional(),
      }),
    )
    .min(1),
});

function idOf(e: z.infer<typeof entrySchema>): number | undefined {
  if (e.id !== undefined) return e.id;
  const m = /^token_id:(\d+)$/.exec(e.token ?? '');
  return m ? Number(m[1]) : undefined;
}

/**
 * The sampled ids and log-probs of a stored chat completion, or null when it has none for every token (no
 * logprobs asked or returned, a token without an id, a log-prob that is not a finite number <= 0).
 */
export function sampledTokensOf(response: unknown): SampledTokens | null {
  const r = responseSchema.safeParse(response);
  const content = r.success ? r.data.choices[0]?.logprobs?.content : undefined;
  if (!content || content.length === 0) return null;
  const ids: number[] = [];
  const logprobs: number[] = [];
  for (const e of content) {
    const id = idOf(e);
    if (id === undefined || !Number.isFinite(e.logprob) || e.logprob > 0) return null;
    ids.push(id);
    logprobs.push(e.logprob);
  }
  return { ids, logprobs };
}
