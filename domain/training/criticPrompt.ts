// The AAC-GRPO critic: a frozen model on the policy's backbone that is shown what the policy cannot see (the
// gold description) and rates one exploration step of a rollout: the trajectory so far, the new call(s) and
// what they returned. Two formats (docs/training.md, "The critic's formats"):
// - `rubric` (critic-v1): a 0-10 reward FIRST on the answer's first line (`REWARD: n`), then the rationale, so
//   an answer cut at max_tokens still carries its reward and a `REWARD:` quoted later is never read;
// - `verify` (critic-v2): one yes/no question (did the step show something the calls so far had not?) answered
//   in one word; the reward is P(yes) over the answer token's yes/no alternatives (the judge's verify format's
//   reading, domain/judge/formats/verify.ts), or 1/0 from the word where an endpoint returns no logprobs.
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

export const CRITIC_FORMATS = ['rubric', 'verify'] as const;
export type CriticFormat = (typeof CRITIC_FORMATS)[number];
/** The format GRPO runs and critic cards use unless told otherwise. */
export const DEFAULT_CRITIC_FORMAT: CriticFormat = 'rubric';

/**
 * The critic answers deterministically (temperature 0: cached across runs and retries). Rubric: its reward
 * comes first, so the cap only bounds the rationale after it; 256 tokens leave room for the one or two
 * sentences asked for (the answer's finish reason is in the ledger). Verify: one word, its logprobs read.
 */
export const CRITIC_PARAMS = { temperature: 0, max_tokens: 256 };
const VERIFY_PARAMS = { temperature: 0, max_tokens: 2, logprobs: true, top_logprobs: 10 };

export function criticParams(format: CriticFormat = DEFAULT_CRITIC_FORMAT): Record<string, unknown> {
  return format === 'verify' ? { ...VERIFY_PARAMS } : { ...CRITIC_PARAMS };
}

/** Bump when the critic's prompt changes: a critic card measured on another prompt does not qualify. */
export const CRITIC_PROMPT_VERSION = 'critic-v1';

/** The version a critic card is keyed by: the rubric keeps `critic-v1` (its cards stay valid); verify is `critic-v2/verify`. */
export function criticPromptVersion(format: CriticFormat = DEFAULT_CRITIC_FORMAT): string {
  return format === 'verify' ? 'critic-v2/verify' : CRITIC_PROMPT_VERSION;
}

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

/**
 * The verify critic's instructions: one question, what counts as yes and as no, and three worked examples
 * (a small model answers a yes/no question about material it can see far better than it weighs a rubric:
 * docs/results/judging.md, "Formats measured").
 */
export const CRITIC_VERIFY_SYSTEM = [
  'You check one step of a student exploring a Python function it cannot read: the student calls the function with',
  'inputs it chooses, reads what comes back, and will later describe what the function does. You see the true',
  'description (hidden from the student), the calls made so far with their results, and the new step.',
  '',
  'Question: did the new step show the student something the calls so far had not shown: a result or an error that',
  'no earlier call returned, or a kind of input (another type or shape of argument) that no earlier call tried?',
  'Answer no when the new step repeats an earlier call, when it returns a result an earlier call of the same kind',
  'of input already returned, or when it was not run.',
  '',
  'Examples (true description: "Returns True when n is even; raises TypeError for a string."):',
  '- calls so far: f(2) -> True; new step: f(2) -> True. Answer: no (the same call again)',
  '- calls so far: f(2) -> True; new step: f(8) -> True. Answer: no (another number, a result already seen)',
  '- calls so far: f(2) -> True; new step: f(3) -> False. Answer: yes (a result not seen before)',
  "- calls so far: f(2) -> True, f(3) -> False; new step: f('a') -> TypeError. Answer: yes (a new kind of input, an error)",
  '',
  'Answer with one word: yes or no.',
].join('\n');

/**
 * The critic's messages: the format's system prompt, then the same user block for both (the signature, the
 * gold description, the calls so far, the new step) and the format's closing line. The rubric's wording is
 * the one critic-v1 cards and cached calls were made with.
 */
export function buildCriticMessages(input: CriticInput, format: CriticFormat = DEFAULT_CRITIC_FORMAT): ChatMessage[] {
  const verify = format === 'verify';
  const user = [
    `Function signature: ${input.signature.trim()}`,
    '',
    'True description (hidden from the student):',
    block('gold_description', input.goldDescription),
    '',
    'Calls so far:',
    block('trajectory', callLines(input.before)),
    '',
    verify ? 'The new step:' : 'The new step to rate:',
    block('new_step', callLines(input.step)),
    '',
    verify
      ? 'Did the new step show the student something about the function that the calls so far had not shown? Answer yes or no.'
      : 'Answer with the line `REWARD: n` first, then your rationale.',
  ].join('\n');
  return [
    { role: 'system', content: verify ? CRITIC_VERIFY_SYSTEM : CRITIC_SYSTEM },
    { role: 'user', content: user },
  ];
}

/** The verify critic's word: yes (1) or no (0) from the reply's first word; null when it is neither. */
export function parseCriticVerdict(text: string | null | undefined): number | null {
  const word = /^[\s*_`"']*(yes|no)\b/i.exec(text ?? '');
  return word ? (word[1]!.toLowerCase() === 'yes' ? 1 : 0) : null;
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
