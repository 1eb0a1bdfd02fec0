// The critic's rubric format (critic-v1): a 0-10 reward FIRST on the answer's first line (`REWARD: n`), then
// the rationale, so an answer cut at max_tokens still carries its reward and a `REWARD:` quoted later is never
// read. Its call keys, card ids and prompt version are the ones critic-v1 cards and cached calls were made
// with. Pure code.
import { criticUserText } from '../criticPrompt';
import type { CriticFormatValue } from './index';

/**
 * The critic answers deterministically (temperature 0: cached across runs and retries); its reward comes
 * first, so the cap only bounds the rationale after it; 256 tokens leave room for the one or two sentences
 * asked for (the answer's finish reason is in the ledger).
 */
export const CRITIC_PARAMS = { temperature: 0, max_tokens: 256 };

/** Bump when the critic's prompt changes: a critic card measured on another prompt does not qualify. */
export const CRITIC_PROMPT_VERSION = 'critic-v1';

export const CRITIC_SYSTEM = [
  'You are the critic in a training loop. A student is exploring a Python function as a black box: it chooses inputs,',
  'calls the function, reads what comes back, and will finally describe what the function does. You are shown the',
  'true description of the function, which the student cannot see, and one new step of its exploration.',
  '',
  'Rate how much the new step helps the student discover the behaviour in the true description:',
  '- high (8-10): the call probes a behaviour, condition, edge case or error the description mentions that the earlier calls did not;',
  '- middle (4-7): a useful but partly redundant or unfocused probe;',
  '- low (0-3): a repeat of an earlier call, an invalid or rejected call, or a probe of nothing that matters.',
  '',
  'Answer with the reward FIRST, on a line of exactly the form',
  'REWARD: n',
  'where n is an integer from 0 to 10, and then, on the following lines, one or two sentences of rationale.',
].join('\n');

/** The critic's own reward line: `REWARD: n` (optionally in bold or backticks, `n/10` allowed), alone on a line. */
const REWARD_LINE = /^\**\s*reward\s*\**\s*[:=]\s*\**\s*([0-9]+(?:\.[0-9]+)?)\s*(?:\/\s*10)?\s*\**\s*\.?$/i;

/**
 * The critic's reward scaled to [0, 1] (n / 10), from the first non-empty line of its answer, which must be
 * `REWARD: n` with an integer 0 <= n <= 10. Null otherwise (the answer is counted as unparsable): a reward
 * line further down is not the critic's answer to the format asked for, and may be quoted text.
 */
export function parseCriticReward(text: string | null | undefined): number | null {
  const first = (text ?? '')
    .split(/\r?\n/)
    .map((l) => l.replace(/[`_]/g, '').trim())
    .find((l) => l.length > 0);
  const m = first ? REWARD_LINE.exec(first) : null;
  if (!m) return null;
  const n = Number(m[1]);
  return Number.isInteger(n) && n >= 0 && n <= 10 ? n / 10 : null;
}

export const rubric: CriticFormatValue = {
  name: 'rubric',
  messages: (input) => [
    { role: 'system', content: CRITIC_SYSTEM },
    { role: 'user', content: criticUserText(input, 'The new step to rate:', 'Answer with the line `REWARD: n` first, then your rationale.') },
  ],
  params: CRITIC_PARAMS,
  promptVersion: CRITIC_PROMPT_VERSION,
  keySuffix: '',
  idSuffix: '',
  flag: '',
  reward: (text) => ({ reward: parseCriticReward(text), text }),
};
