// The critic's formats as values (docs/training.md, "The critic's formats"), as the judge's are
// (domain/judge/formats/): what a rating request sends, how it is keyed, and how its reply becomes a reward.
// Pure code.
import type { ChatMessage } from '../../llm/chatMessage';
import type { TokenLogprob } from '../../llm/tokenLogprobs';
import { type CriticFormat, type CriticInput, DEFAULT_CRITIC_FORMAT } from '../criticPrompt';
import { rubric } from './rubric';
import { verify } from './verify';

export interface CriticFormatValue {
  name: CriticFormat;
  messages(input: CriticInput): ChatMessage[];
  /** The request's params (a card is keyed by them). */
  params: Readonly<Record<string, unknown>>;
  /** The version a critic card is keyed by. */
  promptVersion: string;
  /** What the format adds to a rating's call key, a card's workflow id and the command that computes a card (the rubric: nothing, so its keys and cards stay where they were). */
  keySuffix: string;
  idSuffix: string;
  flag: string;
  /** The reward in [0, 1] from the reply (null: none, counted unparsable) and the text recorded with it. */
  reward(text: string, logprobs: readonly TokenLogprob[] | undefined): { reward: number | null; text: string };
}

/** Every critic format by name. */
export const CRITIC_FORMAT_VALUES: Readonly<Record<CriticFormat, CriticFormatValue>> = { rubric, verify };

/** A critic format's value; the default format when none is named. */
export function criticFormat(name: CriticFormat = DEFAULT_CRITIC_FORMAT): CriticFormatValue {
  return CRITIC_FORMAT_VALUES[name];
}
