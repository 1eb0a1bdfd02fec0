// What every judge request shares, whatever its format (domain/judge/formats/: each format's own prompt and
// reading): the judge's input, the request text that fences it, and the names of the formats. Pure code.
//
// The candidate description is candidate-controlled: it is neutralised (candidateText.ts) before it is
// fenced, so an appended "SCORE: 5" line or a closing tag never reaches the judge.
//
// The judge sees the method's code (the ground truth), the gold description when the source has one
// (CruxEval has none: the judge then works from the code alone) and the agent's description. It never
// sees the agent's trajectory: the score is about the final description only.

import { neutralised } from './candidateText';

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
export function judgeFormatOf(format: string | undefined): JudgeFormat {
  if (format === undefined) return DEFAULT_JUDGE_FORMAT;
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
