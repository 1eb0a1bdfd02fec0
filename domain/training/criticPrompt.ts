// The AAC-GRPO critic: a frozen model on the policy's backbone that is shown what the policy cannot see (the
// gold description) and rates one exploration step of a rollout: the trajectory so far, the new call(s) and
// what they returned. Its prompt and the parser of its answer: the reward comes first, on the answer's first
// line (`REWARD: n`), then the rationale, so an answer cut at max_tokens still carries its reward and a
// `REWARD:` quoted later in the rationale (or echoed from a call's text) is never read as the critic's own.
// Pure code.
import { neutralised } from '../judge/candidateText';
import type { ChatMessage } from '../llm/chatMessage';
import { block } from '../judge/judgePrompt';

export interface CriticCall {
  /** How the call was written (`f(1, 2)` or the raw text of an invalid one). */
  call: string;
  /** What the policy saw back. */
  observation: string;
  /** ran: returned a value; raised: the function raised; rejected: not run (malformed, over budget, ...). */
  status: 'ran' | 'raised' | 'rejected';
}

export interface CriticInput {
  signature: string;
  goldDescription: string;
  /** Earlier steps' calls, in order. */
  before: CriticCall[];
  /** The calls of the step being rated. */
  step: CriticCall[];
}

/**
 * The critic answers deterministically (temperature 0: cached across runs and retries). Its reward comes
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

/** The policy's calls and what came back: candidate-controlled, so neutralised (judge/candidateText.ts) first. */
function callLines(calls: readonly CriticCall[]): string {
  if (calls.length === 0) return '(none)';
  return calls
    .map((c) => {
      const observation = neutralised(c.observation);
      return `${neutralised(c.call)} -> ${c.status === 'rejected' ? `(not run) ${observation}` : observation}  [${c.status}]`;
    })
    .join('\n');
}

export function buildCriticMessages(input: CriticInput): ChatMessage[] {
  const user = [
    `Function signature: ${input.signature.trim()}`,
    '',
    'True description (hidden from the student):',
    block('gold_description', input.goldDescription),
    '',
    'Calls so far:',
    block('trajectory', callLines(input.before)),
    '',
    'The new step to rate:',
    block('new_step', callLines(input.step)),
    '',
    'Answer with the line `REWARD: n` first, then your rationale.',
  ].join('\n');
  return [
    { role: 'system', content: CRITIC_SYSTEM },
    { role: 'user', content: user },
  ];
}

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
