// The rationale format: a 1-5 rubric whose every level is anchored in words; the judge answers with a short
// rationale, then `SCORE: n`, and the score is the expectation over the digit right after the reply's last
// `SCORE:` label (the last score line of the judge's own reply wins). Pure code.
import type { TokenLogprob } from '../../llm/tokenLogprobs';
import { judgeUserText, LOW_DIGIT_MASS, scoreFromSamples } from '../judgePrompt';
import type { ScoreDetail } from '../scoreDistribution';
import type { JudgeFormatValue } from './index';

export const RUBRIC: Record<1 | 2 | 3 | 4 | 5, string> = {
  5: 'Complete and correct: states what the function returns for every kind of input, including edge cases and the errors it raises; a programmer could reimplement it exactly from the description.',
  4: 'Correct on the main behaviour, with one minor gap or slip (an edge case, an error condition, a formatting detail) that would make a reimplementation differ only on unusual inputs.',
  3: 'Partly correct: the general purpose is right, but a significant part is wrong or missing (a condition, a transformation step, the return type), so a reimplementation would be wrong on many ordinary inputs.',
  2: 'Mostly wrong: a few surface facts are right (what it takes, the kind of thing it returns) but the core behaviour is wrong or missing.',
  1: 'Wrong or empty: contradicts the behaviour, describes something unrelated, or says nothing that can be checked.',
};

export const JUDGE_SYSTEM = [
  'You grade descriptions of Python functions. A researcher could not read the function; they called it as a black box',
  'and wrote a description of what it does. You can read the code. Judge how accurately and completely the',
  "description captures the function's behaviour.",
  '',
  'Rules:',
  '- The code is the ground truth. A reference description, when given, is a help; where it and the code disagree, the code wins.',
  '- Judge behaviour, not wording: a different but equivalent explanation is fully correct.',
  '- Do not reward length, hedging or lists of alternative guesses: judge what the description commits to.',
  '- Ignore performance and implementation details that do not change results.',
  '- The researcher observed only what each call returned or the exception it raised. Changes a function makes to its',
  '  arguments in place (e.g. sorting or appending to a list it was given), printed output and other side effects were',
  '  invisible to them: do not count their absence against the description; judge the return values and exceptions.',
  '',
  'Rubric:',
  ...([5, 4, 3, 2, 1] as const).map((n) => `${n} - ${RUBRIC[n]}`),
  '',
  'Answer with a short rationale (at most a few sentences), then a final line of exactly the form',
  'SCORE: n',
  'where n is an integer from 1 to 5.',
].join('\n');

/** The follow-up sent once when the judge's answer had no parsable score. */
export const JUDGE_RETRY_PROMPT =
  'Your answer did not end with a parsable score. Reply with one line of exactly the form `SCORE: n`, where n is an integer from 1 to 5.';

/**
 * The number on the last line that reads `<label>: n` (or `n/<outOf>`), tolerating markdown emphasis,
 * headings and `=`: `SCORE: 4`, `**SCORE: 4**`, `Score: **4**`, `SCORE = 4`, `SCORE: 4/5`, `SCORE: 4.0`,
 * `### SCORE: 4`. The last such line is the answer (callers check its range). Null when there is none.
 */
export function lastLabelledNumber(text: string | null | undefined, label: string, outOf: number): number | null {
  if (!text) return null;
  const re = new RegExp(`(?:^|[^A-Za-z])${label}\\**\\s*[:=]\\s*\\**\\s*([0-9]+(?:\\.[0-9]+)?)\\s*(?:\\/\\s*${outOf})?\\s*\\**\\s*\\.?\\s*$`, 'i');
  const lines = text.split(/\r?\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = re.exec((lines[i] as string).replace(/[`_]/g, '').trim());
    if (m) return Number(m[1]);
  }
  return null;
}

/**
 * The score of a judge's answer: the last `SCORE: n` line, with an integer n in 1..5. Null when there is
 * none, or when that line's score is out of range or fractional (the last score line is the answer).
 */
export function parseScore(text: string | null | undefined): number | null {
  const v = lastLabelledNumber(text, 'score', 5);
  return v !== null && Number.isInteger(v) && v >= 1 && v <= 5 ? v : null;
}

const DIGIT = /^\s*\**\s*([1-5])\s*$/;

export interface DigitDistribution {
  /** P(1..5), renormalised. */
  dist: number[];
  mass: number;
  expected: number;
  argmax: number;
}

/** The distribution over 1..5 at one token position (its top alternatives); null when no digit is among them. */
export function digitDistributionAt(t: TokenLogprob): DigitDistribution | null {
  const raw = [0, 0, 0, 0, 0];
  const alts = t.top_logprobs.length > 0 ? t.top_logprobs : [{ token: t.token, logprob: t.logprob }];
  for (const a of alts) {
    const m = DIGIT.exec(a.token);
    if (m) raw[Number(m[1]) - 1]! += Math.exp(a.logprob);
  }
  const mass = raw.reduce((a, b) => a + b, 0);
  if (mass <= 0) return null;
  const dist = raw.map((p) => p / mass);
  const expected = dist.reduce((a, p, i) => a + p * (i + 1), 0);
  let argmax = 0;
  for (let i = 1; i < 5; i++) if (dist[i]! > dist[argmax]!) argmax = i;
  return { dist, mass, expected, argmax: argmax + 1 };
}

/**
 * The position of the score token in a reply: the digit right after the last `SCORE:` label (markdown
 * emphasis allowed). -1 when there is none.
 */
export function scoreTokenIndex(tokens: readonly TokenLogprob[]): number {
  let text = '';
  let found = -1;
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i]!.token;
    if (DIGIT.test(tok) && /score\s*\**\s*[:=]\s*\**\s*$/i.test(text)) found = i;
    text += tok;
  }
  return found;
}

/** The score from a reply's logprobs: the expectation over its score token; unscorable when there is none. */
export function scoreFromDigitLogprobs(tokens: readonly TokenLogprob[], format: string): ScoreDetail {
  const i = scoreTokenIndex(tokens);
  const d = i >= 0 ? digitDistributionAt(tokens[i]!) : null;
  if (!d)
    return {
      method: 'logprobs',
      format,
      expected: null,
      argmax: null,
      unscorable: i < 0 ? 'no score token in the reply' : "no digit 1-5 among the score token's alternatives",
    };
  return {
    method: 'logprobs',
    format,
    expected: d.expected,
    argmax: d.argmax,
    dist: d.dist,
    mass: d.mass,
    ...(d.mass < LOW_DIGIT_MASS ? { lowMass: true } : {}),
  };
}

export const rationale: JudgeFormatValue = {
  name: 'rationale',
  messages: (input) => [
    { role: 'system', content: JUDGE_SYSTEM },
    { role: 'user', content: judgeUserText(input, 'Give your rationale, then the final line `SCORE: n`.') },
  ],
  maxTokens: 400,
  retryPrompt: JUDGE_RETRY_PROMPT,
  parse: parseScore,
  hasAnswer: (tokens) => scoreTokenIndex(tokens) >= 0,
  fromLogprobs: (tokens) => scoreFromDigitLogprobs(tokens, 'rationale'),
  fromSamples: (samples) => scoreFromSamples(samples, 'rationale'),
  besideAnother: false,
  plan: (cases) => ({ requests: cases.map((c) => ({ methodId: c.methodId, callKey: c.callKey, input: c.input, ask: rationale })), combine: (v) => [...v] }),
};
