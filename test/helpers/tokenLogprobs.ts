// A token with its top alternatives as the OpenAI wire sends them, for the judge's logprob tests.
import type { TokenLogprob } from '../../domain/llm/tokenLogprobs';

/** `token` with alternatives [text, probability]; by default certain (its own only alternative). */
export const tok = (token: string, alts: [string, number][] = [[token, 1]]): TokenLogprob => ({
  token,
  logprob: Math.log(alts.find((a) => a[0] === token)?.[1] ?? 1),
  top_logprobs: alts.map(([t, p]) => ({ token: t, logprob: Math.log(p) })),
});
