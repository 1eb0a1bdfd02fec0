// The critic's verify format (critic-v2): one yes/no question (did the step show something the calls so far
// had not?) answered in one word; the reward is P(yes) over the answer token's yes/no alternatives (the judge's
// verify format's reading, domain/judge/formats/verify.ts), or 1/0 from the word where an endpoint returns no
// logprobs. Keyed apart from the rubric: its call keys end `#verify`, its cards `/verify`. Pure code.
import { scoreFromVerdictLogprobs } from '../../judge/formats/verify';
import { criticUserText } from '../criticPrompt';
import type { CriticFormatValue } from './index';

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

/** The verify critic's word: yes (1) or no (0) from the reply's first word; null when it is neither. */
export function parseCriticVerdict(text: string | null | undefined): number | null {
  const word = /^[\s*_`"']*(yes|no)\b/i.exec(text ?? '');
  return word ? (word[1]!.toLowerCase() === 'yes' ? 1 : 0) : null;
}

export const verify: CriticFormatValue = {
  name: 'verify',
  messages: (input) => [
    { role: 'system', content: CRITIC_VERIFY_SYSTEM },
    {
      role: 'user',
      content: criticUserText(
        input,
        'The new step:',
        'Did the new step show the student something about the function that the calls so far had not shown? Answer yes or no.',
      ),
    },
  ],
  // One word, its logprobs read.
  params: { temperature: 0, max_tokens: 2, logprobs: true, top_logprobs: 10 },
  promptVersion: 'critic-v2/verify',
  keySuffix: '#verify',
  idSuffix: '/verify',
  flag: ' --format verify',
  reward: (text, logprobs) => {
    const pYes = logprobs && logprobs.length > 0 ? scoreFromVerdictLogprobs(logprobs, 'critic-verify').pYes : undefined;
    return { reward: pYes ?? parseCriticVerdict(text), text: pYes === undefined ? text : `${text.trim()} (P(yes) ${pYes.toFixed(3)})` };
  },
};
