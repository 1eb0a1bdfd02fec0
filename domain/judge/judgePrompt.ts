// What every judge format shares (domain/judge/formats/ holds each format's own prompt and reading): the
// judge's input and the request text that fences it, the names of the formats, the logprobs every request
// asks for, and the mean of sampled verdicts where an endpoint returns none. Pure code.
//
// The candidate description is candidate-controlled: it is neutralised (candidateText.ts) before it is
// fenced, so an appended "SCORE: 5" line or a closing tag never reaches the judge.
//
// The judge sees the method's code (the ground truth), the gold description when the source has one
// (CruxEval has none: the judge then works from the code alone) and the agent's description. It never
// sees the agent's trajectory: the score is about the final description only.

import { neutralised } from './candidateText';
import type { ScoreDetail } from './scoreDistribution';

export interface JudgeInput {
  signature: string;
  code: string;
  goldDescription: string | null;
  agentDescription: string;
}

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
 * The judge's prompt formats, chosen by the judge card (docs/judging.md, "Prompt formats"); each is a value
 * in domain/judge/formats/ (its messages, token limit, parse and readings, and the requests it plans):
 * - `rationale`: a short rationale, then `SCORE: n` (the score token is the digit after the last label);
 * - `verify` (reference-guided, binary): one yes/no question, does the candidate state what the function does
 *   (the code and the reference beside it); the score is 1 + 4 P(yes);
 * - `contrast`: verify's question (the same messages) asked beside the method and beside an unrelated one;
 *   the score is the yes specific to the method, 1 + 4 max(0, P(yes) - P(yes | contrast)).
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
export function judgeFormatOf(format: string = DEFAULT_JUDGE_FORMAT): JudgeFormat {
  if (!(JUDGE_FORMATS as readonly string[]).includes(format)) throw new RangeError(judgeFormatError(format));
  return format as JudgeFormat;
}

/**
 * The format judges use unless a run or card names another: `contrast`, verify's question asked beside the
 * method and beside an unrelated one. Verify alone qualified the local 1.5B but scored a description true of
 * any function 3.7 of 5; the contrast takes that yes away (docs/results/judging.md, "Formats measured").
 */
export const DEFAULT_JUDGE_FORMAT: JudgeFormat = 'contrast';

/** Sampled verdicts averaged when an endpoint returns no logprobs. */
export const DEFAULT_SAMPLES = 3;

/** Alternatives asked for at each position: enough that all five digits are seen when they carry mass. */
export const TOP_LOGPROBS = 10;

/** Below this share of probability on the answer's values the distribution is flagged (the judge meant something else). */
export const LOW_DIGIT_MASS = 0.5;

/** The mean of n sampled verdicts (an endpoint without logprobs); unscorable when none parsed. */
export function scoreFromSamples(samples: readonly (number | null)[], format: string): ScoreDetail {
  const ok = samples.filter((s): s is number => s !== null);
  if (ok.length === 0)
    return { method: 'sampled', format, expected: null, argmax: null, samples: [...samples], unscorable: 'no sampled verdict had a parsable score' };
  const mean = ok.reduce((a, b) => a + b, 0) / ok.length;
  const counts = [1, 2, 3, 4, 5].map((k) => ok.filter((s) => s === k).length);
  return { method: 'sampled', format, expected: mean, argmax: counts.indexOf(Math.max(...counts)) + 1, samples: [...samples] };
}

/** A request's text in every format: signature, code, reference, the neutralised candidate, then the format's ask. */
export function judgeUserText(input: JudgeInput, ask: string): string {
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
