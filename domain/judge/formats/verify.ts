// The verify format (reference-guided, binary): one yes/no question, does the candidate correctly state what
// the function does, with the code and the reference beside it and five worked examples before it; the score
// is 1 + 4 P(yes), P(yes) renormalised over the answer token's yes/no alternatives. A small judge answers a
// yes/no question about a reference it can see far more reliably than it places a description on a
// five-level scale (docs/results/judging.md, "Formats measured"). Pure code.
import type { ChatMessage } from '../../llm/chatMessage';
import type { TokenLogprob } from '../../llm/tokenLogprobs';
import { judgeUserText, type JudgeInput, LOW_DIGIT_MASS, scoreFromSamples } from '../judgePrompt';
import type { ScoreDetail } from '../scoreDistribution';
import type { JudgeFormatValue } from './index';

/** The system prompt: one binary question, short, with no rubric to weigh. */
export const VERIFY_SYSTEM = [
  "You check descriptions of Python functions. You can read the function's code and a correct reference description.",
  'A candidate description was written by someone who could only call the function. Decide whether the candidate',
  'correctly states what the function does: the same results for the same inputs as the code and the reference (in any words).',
  'A candidate that is empty, vague, describes a different function or gets the main behaviour wrong is "no".',
  'Answer with one word: yes or no.',
].join('\n');

export const VERIFY_QUESTION = 'Does the candidate correctly state what the function does? Answer yes or no.';

/**
 * The worked examples, sent before every request as earlier turns: two correct paraphrases (yes), an empty
 * description, one of another function and a vague one (no). Functions of their own, in no dataset, so no
 * benchmark method's answer is shown. With them the 1.5B's mean P(yes) on the tuning set moved from
 * 0.74 / 0.25 / 0.35 (gold / wrong / empty) to 0.84 / 0.09 / 0.32 (docs/results/judging.md, "Formats measured").
 */
export const VERIFY_EXAMPLES: readonly { input: JudgeInput; answer: 'yes' | 'no' }[] = [
  {
    input: {
      signature: 'def is_even(n)',
      code: 'def is_even(n):\n    return n % 2 == 0',
      goldDescription: 'Check whether a number is even.',
      agentDescription: 'Returns True when n is divisible by 2 and False otherwise.',
    },
    answer: 'yes',
  },
  {
    input: {
      signature: 'def longest(words)',
      code: 'def longest(words):\n    if not words:\n        return None\n    return max(words, key=len)',
      goldDescription: 'Return the longest string in the list; None for an empty list.',
      agentDescription: '',
    },
    answer: 'no',
  },
  {
    input: {
      signature: 'def count_vowels(s)',
      code: "def count_vowels(s):\n    return sum(1 for ch in s.lower() if ch in 'aeiou')",
      goldDescription: 'Count the vowels in a string, ignoring case.',
      agentDescription: 'Returns the string reversed.',
    },
    answer: 'no',
  },
  {
    input: {
      signature: 'def word_lengths(text)',
      code: 'def word_lengths(text):\n    return [len(w) for w in text.split()]',
      goldDescription: 'Return the length of each word in the text.',
      agentDescription: 'It processes the input and returns a result.',
    },
    answer: 'no',
  },
  {
    input: {
      signature: 'def clamp(x, lo, hi)',
      code: 'def clamp(x, lo, hi):\n    return max(lo, min(x, hi))',
      goldDescription: 'Limit x to the range [lo, hi].',
      agentDescription: 'Gives lo if x is below lo, hi if x is above hi, else x itself.',
    },
    answer: 'yes',
  },
];

/** The follow-up when the answer was neither yes nor no. */
export const VERIFY_RETRY_PROMPT = 'Answer with one word: yes or no.';

/** Scores of the two answers on the rubric's scale: a correct description 5, any other 1. */
export const VERIFY_SCORES = { yes: 5, no: 1 } as const;

/** The answer: `yes` / `no` as the first word of its last non-blank line (case, emphasis and punctuation aside); null otherwise. */
export function parseVerdictWord(text: string | null | undefined): 'yes' | 'no' | null {
  const last =
    (text ?? '')
      .split(/\r?\n/)
      .filter((l) => l.trim() !== '')
      .at(-1) ?? '';
  const m = /^[\s*_`"']*(yes|no)\b/i.exec(last);
  return m ? (m[1]!.toLowerCase() as 'yes' | 'no') : null;
}

const YES = /^[\s*_`"']*yes[\s.!*_`"']*$/i;
const NO = /^[\s*_`"']*no[\s.!*_`"']*$/i;

/**
 * The score from the answer token (the first non-blank token of the reply's last line, as the last score line
 * wins elsewhere; a one-token reply is that token): P(yes) renormalised over the yes and no alternatives, as
 * the expected score of 5 for yes and 1 for no, so it reads on the rubric's scale (fail <= 2 is
 * P(yes) <= 0.25). `dist` holds P(1..5) with the mass on 1 and 5 only. The AAC critic's verify format reads
 * its answer the same way (activities/training/criticRating.ts).
 */
export function scoreFromVerdictLogprobs(tokens: readonly TokenLogprob[], format: string): ScoreDetail {
  let start = 0;
  for (let i = 0; i < tokens.length; i++) if (tokens[i]!.token.includes('\n') && tokens.slice(i + 1).some((x) => x.token.trim() !== '')) start = i + 1;
  const t = tokens.slice(start).find((x) => x.token.trim() !== '');
  if (!t) return { method: 'logprobs', format, expected: null, argmax: null, unscorable: 'empty reply' };
  let y = 0;
  let n = 0;
  for (const a of t.top_logprobs.length > 0 ? t.top_logprobs : [{ token: t.token, logprob: t.logprob }]) {
    if (YES.test(a.token)) y += Math.exp(a.logprob);
    else if (NO.test(a.token)) n += Math.exp(a.logprob);
  }
  const mass = y + n;
  if (mass <= 0) return { method: 'logprobs', format, expected: null, argmax: null, unscorable: "no yes or no among the answer token's alternatives" };
  const pYes = y / mass;
  return {
    method: 'logprobs',
    format,
    expected: 1 + 4 * pYes,
    argmax: pYes >= 0.5 ? 5 : 1,
    dist: [1 - pYes, 0, 0, 0, pYes],
    mass,
    ...(mass < LOW_DIGIT_MASS ? { lowMass: true } : {}),
    pYes,
  };
}

export const verify: JudgeFormatValue = {
  name: 'verify',
  // The worked examples come first, the same for every request, so the server's prompt cache keeps them.
  messages: (input) => [
    { role: 'system', content: VERIFY_SYSTEM },
    ...VERIFY_EXAMPLES.flatMap((e): ChatMessage[] => [
      { role: 'user', content: judgeUserText({ ...e.input }, VERIFY_QUESTION) },
      { role: 'assistant', content: e.answer },
    ]),
    { role: 'user', content: judgeUserText(input, VERIFY_QUESTION) },
  ],
  maxTokens: 1,
  retryPrompt: VERIFY_RETRY_PROMPT,
  parse: (text) => {
    const w = parseVerdictWord(text);
    return w ? VERIFY_SCORES[w] : null;
  },
  hasAnswer: (tokens) => scoreFromVerdictLogprobs(tokens, 'verify').expected !== null,
  fromLogprobs: (tokens) => scoreFromVerdictLogprobs(tokens, 'verify'),
  fromSamples: (samples) => scoreFromSamples(samples, 'verify'),
  besideAnother: false,
  plan: (cases) => ({ requests: cases.map((c) => ({ methodId: c.methodId, callKey: c.callKey, input: c.input, ask: verify })), combine: (v) => [...v] }),
};
