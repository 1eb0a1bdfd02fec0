// One critic rating of one exploration step: the prompt of the critic's format, the critic's params, one
// cached model call, the reward read from its reply. GRPO rollouts (criticRollout) and the critic card
// (rateCriticCardEpisode) both rate through here, so the card measures exactly what training is paid with.
import type { CriticFormat, CriticInput } from '../../domain/training/criticPrompt';
import { criticFormat } from '../../domain/training/criticFormats';
import { chat, type ChatDeps } from '../llm/chat';

export interface CriticRating {
  /** In [0, 1]; null: the reply carried no reward (counted unparsable). */
  reward: number | null;
  /** The critic's reply (its rationale, or the verify word). */
  text: string;
}

/**
 * The reward of one step in the critic's format (domain/training/criticFormats/): rubric, the `REWARD: n` line
 * / 10; verify, P(yes) over the answer token's yes/no alternatives when the endpoint returns logprobs, else 1
 * for a yes and 0 for a no.
 */
export async function rateCriticStep(
  deps: ChatDeps,
  req: { model: string; methodId: string; callKey: string; input: CriticInput; format: CriticFormat },
): Promise<CriticRating> {
  const f = criticFormat(req.format);
  // The rubric keeps the keys it always had (its ledger rows stay where they were); another format is keyed apart.
  const r = await chat(
    { model: req.model, messages: f.messages(req.input), params: { ...f.params }, callKey: `${req.callKey}${f.keySuffix}`, about: { methodId: req.methodId } },
    deps,
  );
  return f.reward(r.message.content ?? '', r.message.logprobs);
}
