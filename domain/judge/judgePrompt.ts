// The description judge: its prompt (a 1-5 rubric whose every level is anchored in words) and the parser
// of its answer (the last `SCORE: n` line of the judge's own reply wins). Pure code, no I/O.
//
// The candidate description is candidate-controlled: it is neutralised (candidateText.ts) before it is
// fenced, so an appended "SCORE: 5" line or a closing tag never reaches the judge.
//
// The judge sees the method's code (the ground truth), the gold description when the source has one
// (CruxEval has none: the judge then works from the code alone) and the agent's description. It never
// sees the agent's trajectory: the score is about the final description only.

import type { ChatMessage } from '../llm/chatMessage';
import { neutralised } from './candidateText';
import { isVerdictFormat } from './scoreDistribution';

export interface JudgeInput {
  signature: string;
  code: string;
  goldDescription: string | null;
  agentDescription: string;
}

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

/** Wraps text in a tagged block; the tags are part of the contract the scripted judge parses. */
export function block(tag: string, text: string): string {
  return `<${tag}>\n${text.trim()}\n</${tag}>`;
}

/** Reads a tagged block back (the last one of that tag); undefined when absent. */
export function readBlock(text: string, tag: string): string | undefined {
  const re = new RegExp(`<${tag}>\\n?([\\s\\S]*?)\\n?</${tag}>`, 'g');
  let found: string | undefined;
  for (const m of text.matchAll(re)) found = m[1];
  return found;
}

/**
 * The judge's prompt formats, chosen by the judge card (docs/judging.md, "Prompt formats"):
 * - `rationale`: a short rationale, then `SCORE: n` (the score token is the digit after the last label);
 * - `verify` (reference-guided, binary): one yes/no question, does the candidate state what the function does
 *   (the code and the reference beside it); the score is 1 + 4 P(yes) (scoreDistribution.ts);
 * - `contrast`: verify's question (the same messages) asked beside the method and beside an unrelated one;
 *   the score is the yes specific to the method, 1 + 4 max(0, P(yes) - P(yes | contrast)) (contrast.ts).
 * Every format puts the method's code and reference before the candidate, so a server's prompt cache reuses
 * that prefix across the descriptions of one method.
 */
export const JUDGE_FORMATS = ['rationale', 'verify', 'contrast'] as const;
export type JudgeFormat = (typeof JUDGE_FORMATS)[number];

/** Formats measured and retired (2026-12-07): neither qualified a judge nor serves a default (docs/results/judging.md). */
const RETIRED_JUDGE_FORMATS = ['checklist', 'score-first'];

/** Why `format` is not a judge format: a retired one names what replaced it (`contrast`). */
export function judgeFormatError(format: unknown): string {
  const f = String(format);
  return RETIRED_JUDGE_FORMATS.includes(f)
    ? `judge format \`${f}\` is retired (2026-12-07: it did not qualify a judge); the \`contrast\` format replaced it (docs/results/judging.md)`
    : `unknown judge format ${JSON.stringify(f)} (known: ${JUDGE_FORMATS.join(', ')})`;
}

/** A judge format as a run's config or a CLI flag gives it; a retired or unknown one throws a RangeError saying which. */
export function judgeFormatOf(format: string | undefined): JudgeFormat {
  if (format === undefined) return DEFAULT_JUDGE_FORMAT;
  if (!(JUDGE_FORMATS as readonly string[]).includes(format)) throw new RangeError(judgeFormatError(format));
  return format as JudgeFormat;
}

/**
 * The verify format's system prompt: one binary question, short, with no rubric to weigh. A small judge
 * answers a yes/no question about a reference it can see far more reliably than it places a description on
 * a five-level scale (docs/results/judging.md, "Formats measured").
 */
export const VERIFY_SYSTEM = [
  "You check descriptions of Python functions. You can read the function's code and a correct reference description.",
  'A candidate description was written by someone who could only call the function. Decide whether the candidate',
  'correctly states what the function does: the same results for the same inputs as the code and the reference (in any words).',
  'A candidate that is empty, vague, describes a different function or gets the main behaviour wrong is "no".',
  'Answer with one word: yes or no.',
].join('\n');

export const VERIFY_QUESTION = 'Does the candidate correctly state what the function does? Answer yes or no.';

/**
 * The verify format's worked examples, sent before every request as earlier turns: two correct paraphrases
 * (yes), an empty description, one of another function and a vague one (no). Functions of their own, in no
 * dataset, so no benchmark method's answer is shown. With them the 1.5B's mean P(yes) on the tuning set moved
 * from 0.74 / 0.25 / 0.35 (gold / wrong / empty) to 0.84 / 0.09 / 0.32 (docs/results/judging.md, "Formats measured").
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

export function buildJudgeMessages(input: JudgeInput, format: JudgeFormat): ChatMessage[] {
  if (format === 'contrast') return buildJudgeMessages(input, 'verify');
  if (format === 'rationale')
    return [
      { role: 'system', content: JUDGE_SYSTEM },
      { role: 'user', content: judgeUserText(input, 'Give your rationale, then the final line `SCORE: n`.') },
    ];
  // The worked examples come first, the same for every request, so the server's prompt cache keeps them.
  const shots = VERIFY_EXAMPLES.flatMap((e): ChatMessage[] => [
    { role: 'user', content: judgeUserText({ ...e.input }, VERIFY_QUESTION) },
    { role: 'assistant', content: e.answer },
  ]);
  return [{ role: 'system', content: VERIFY_SYSTEM }, ...shots, { role: 'user', content: judgeUserText(input, VERIFY_QUESTION) }];
}

/** The request's text: signature, code, reference, the neutralised candidate, the question. */
function judgeUserText(input: JudgeInput, ask: string): string {
  const candidate = neutralised(input.agentDescription);
  return [
    `Function signature: ${input.signature.trim()}`,
    '',
    "The function's code:",
    block('method_code', input.code),
    '',
    input.goldDescription && input.goldDescription.trim()
      ? `Reference description (written by the benchmark's authors):\n${block('reference_description', input.goldDescription)}`
      : 'There is no reference description for this function: judge against the code alone.',
    '',
    'The description to grade:',
    block('candidate_description', candidate.trim() === '' ? '(empty)' : candidate),
    '',
    ask,
  ].join('\n');
}

/**
 * The format judges use unless a run or card names another: `contrast`, verify's question asked beside the
 * method and beside an unrelated one. Verify alone qualified the local 1.5B but scored a description true of
 * any function 3.7 of 5; the contrast takes that yes away (docs/results/judging.md, "Formats measured").
 */
export const DEFAULT_JUDGE_FORMAT: JudgeFormat = 'contrast';

/** Sampled verdicts averaged when an endpoint returns no logprobs. */
export const DEFAULT_SAMPLES = 3;

/** max_tokens of a judge reply per format: a rationale, or the verdict word alone. */
export const JUDGE_MAX_TOKENS: Record<JudgeFormat, number> = { rationale: 400, verify: 1, contrast: 1 };

/** The follow-up sent once when the judge's answer had no parsable score. */
export const JUDGE_RETRY_PROMPT =
  'Your answer did not end with a parsable score. Reply with one line of exactly the form `SCORE: n`, where n is an integer from 1 to 5.';

/** The verify format's follow-up when the answer was neither yes nor no. */
export const VERIFY_RETRY_PROMPT = 'Answer with one word: yes or no.';

export function judgeRetryPrompt(format: JudgeFormat): string {
  return isVerdictFormat(format) ? VERIFY_RETRY_PROMPT : JUDGE_RETRY_PROMPT;
}

/** Scores of the verify format's two answers on the rubric's scale: a correct description 5, any other 1. */
export const VERIFY_SCORES = { yes: 5, no: 1 } as const;

/** The verify format's answer: `yes` / `no` as the first word of its last non-blank line (case, emphasis and punctuation aside); null otherwise. */
export function parseVerdictWord(text: string | null | undefined): 'yes' | 'no' | null {
  const last =
    (text ?? '')
      .split(/\r?\n/)
      .filter((l) => l.trim() !== '')
      .at(-1) ?? '';
  const m = /^[\s*_`"']*(yes|no)\b/i.exec(last);
  return m ? (m[1]!.toLowerCase() as 'yes' | 'no') : null;
}

/** A reply's score in its format: the verdict word's score (verify) or the last `SCORE: n` line. */
export function parseJudgeReply(text: string | null | undefined, format: JudgeFormat): number | null {
  if (isVerdictFormat(format)) {
    const w = parseVerdictWord(text);
    return w ? VERIFY_SCORES[w] : null;
  }
  return parseScore(text);
}

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
