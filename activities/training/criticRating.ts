// One critic rating of one exploration step: the prompt of the critic's format, the critic's params, one
// cached model call, the reward read from its reply. GRPO rollouts (criticRollout) and the critic card
// (rateCriticCardEpisode) both rate through here, so the card measures exactly what training is paid with.
import { scoreFromVerdictLogprobs } from '../../domain/judge/formats/verify';
import {
  buildCriticMessages,
  criticParams,
  parseCriticReward,
  parseCriticVerdict,
  type CriticFormat,
  type CriticInput,
} from '../../domain/training/criticPrompt';
import { chat, type ChatDeps } from '../llm/chat';

export interface CriticRating {
  /** In [0, 1]; null: the reply carried no reward (counted unparsable). */
  reward: number | null;
  /** The critic's reply (its rationale, or the verify word). */
  text: string;
}

/**
 * The reward of one step: rubric, the `REWARD: n` line / 10; verify, P(yes) over the answer token's yes/no
 * alternatives when the endpoint returns logprobs, else 1 for a yes and 0 for a no.
 */
export async function rateCriticStep(
  deps: ChatDeps,
  req: { model: string; methodId: string; callKey: string; input: CriticInput; format: CriticFormat },
): Promise<CriticRating> {
  const messages = buildCriticMessages(req.input, req.format);
  // The rubric keeps the keys it always had (its ledger rows stay where they were); another format is keyed apart.
  const callKey = req.format === 'rubric' ? req.callKey : `${req.callKey}#${req.format}`;
  const r = await chat({ model: req.model, messages, params: criticParams(req.format), callKey, about: { methodId: req.methodId } }, deps);
  const text = r.message.content ?? '';
  if (req.format === 'rubric') return { reward: parseCriticReward(text), text };
  const lp = r.message.logprobs;
  const pYes = lp && lp.length > 0 ? scoreFromVerdictLogprobs(lp, 'critic-verify').pYes : undefined;
  return { reward: pYes ?? parseCriticVerdict(text), text: pYes === undefined ? text : `${text.trim()} (P(yes) ${pYes.toFixed(3)})` };
}
