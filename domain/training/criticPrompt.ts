// The AAC-GRPO critic: a frozen model on the policy's backbone that is shown what the policy cannot see (the
// gold description) and rates one exploration step of a rollout: the trajectory so far, the new call(s) and
// what they returned. What both formats share is here; each format is a value in criticFormats/
// (docs/training.md, "The critic's formats"):
// - `rubric` (critic-v1): a 0-10 reward FIRST on the answer's first line (`REWARD: n`), then the rationale, so
//   an answer cut at max_tokens still carries its reward and a `REWARD:` quoted later is never read;
// - `verify` (critic-v2): one yes/no question (did the step show something the calls so far had not?) answered
//   in one word; the reward is P(yes) over the answer token's yes/no alternatives (the judge's verify format's
//   reading, domain/judge/formats/verify.ts), or 1/0 from the word where an endpoint returns no logprobs.
// Pure code.
import { neutralised } from '../judge/candidateText';
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
 * The critic's user message in every format: the signature, the gold description, the calls so far, then the
 * step (under the format's label) and the format's closing line.
 */
export function criticUserText(input: CriticInput, stepLabel: string, ask: string): string {
  return [
    `Function signature: ${input.signature.trim()}`,
    '',
    'True description (hidden from the student):',
    block('gold_description', input.goldDescription),
    '',
    'Calls so far:',
    block('trajectory', callLines(input.before)),
    '',
    stepLabel,
    block('new_step', callLines(input.step)),
    '',
    ask,
  ].join('\n');
}
