// Probability-weighted judge scores (G-Eval, Liu et al. 2023): the judge's score is the expectation over
// the distribution of its score token (1-5), read from the endpoint's logprobs, not the digit it happened to
// emit. A 1.5B judge orders descriptions by that expectation far better than by its argmax digit, and the
// expectation never ties. Where an endpoint returns no logprobs, the score is the mean of n sampled verdicts.
// Pure code: the logprob shape as the OpenAI wire sends it, the distribution, the score detail stored per
// judgment.
import { z } from 'zod';
import type { TokenLogprob } from '../llm/tokenLogprobs';

/** Alternatives asked for at each position: enough that all five digits are seen when they carry mass. */
export const TOP_LOGPROBS = 10;

/** Below this share of probability on the five digits the distribution is flagged (the judge meant something else). */
export const LOW_DIGIT_MASS = 0.5;

/** How a judgment's score was obtained; stored per judgment (judgments.score_detail) and per card rung. */
export const scoreDetailSchema = z.object({
  /** `logprobs`: the expectation over the score token; `sampled`: the mean of n sampled verdicts; `parsed`: one parsed digit. */
  method: z.enum(['logprobs', 'sampled', 'parsed']),
  /** The judge prompt format (domain/judge/judgePrompt.ts). */
  format: z.string(),
  /** The score: the expectation (logprobs), the mean (sampled) or the digit (parsed); null: unscorable. */
  expected: z.number().nullable(),
  /** The most likely digit (logprobs) or the digit the judge wrote. */
  argmax: z.number().int().nullable(),
  /** P(1..5), renormalised over the digits (logprobs only). */
  dist: z.array(z.number()).length(5).optional(),
  /** The probability mass on the five digits before renormalising (logprobs only). */
  mass: z.number().optional(),
  /** mass < LOW_DIGIT_MASS: the score token was mostly not a digit. */
  lowMass: z.boolean().optional(),
  /** Sampled verdicts (sampled only): each parsed score, null where unparsable. */
  samples: z.array(z.number().nullable()).optional(),
  /** Why there is no score (no digit token, no parsable sample). */
  unscorable: z.string().optional(),
  /** Verify format: P(yes) renormalised over yes/no at the answer token; the score is 1 + 4 pYes. */
  pYes: z.number().optional(),
  /** Contrast format: P(yes) of the same description beside the contrast method (domain/judge/contrast.ts). */
  pYesContrast: z.number().optional(),
  /** Contrast format: the method the description was also judged beside. */
  contrastMethodId: z.string().optional(),
  /** Contrast format with no other method stored to ask beside: the score is verify's. */
  noContrast: z.boolean().optional(),
});
export type ScoreDetail = z.infer<typeof scoreDetailSchema>;

/** The formats whose answer is one yes/no word (verify, and contrast, which asks verify's question twice). */
export function isVerdictFormat(format: string): boolean {
  return format === 'verify' || format === 'contrast';
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

const YES = /^[\s*_`"']*yes[\s.!*_`"']*$/i;
const NO = /^[\s*_`"']*no[\s.!*_`"']*$/i;

/**
 * The verify format's score from the answer token (the first non-blank token of the reply's last line, as the
 * last score line wins elsewhere; a one-token reply is that token): P(yes) renormalised
 * over the yes and no alternatives, as the expected score of 5 for yes and 1 for no, so it reads on the
 * rubric's scale (fail <= 2 is P(yes) <= 0.25). `dist` holds P(1..5) with the mass on 1 and 5 only.
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

/** Whether a reply's logprobs hold an answer token of the format (a score digit, or yes/no for verify). */
export function hasAnswerToken(tokens: readonly TokenLogprob[], format: string): boolean {
  return isVerdictFormat(format) ? scoreFromVerdictLogprobs(tokens, format).expected !== null : scoreTokenIndex(tokens) >= 0;
}

/** A judgment's score from its reply's logprobs; unscorable (expected null) when the reply has no score token. */
export function scoreFromLogprobs(tokens: readonly TokenLogprob[], format: string): ScoreDetail {
  if (isVerdictFormat(format)) return scoreFromVerdictLogprobs(tokens, format);
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

/** The mean of n sampled verdicts (an endpoint without logprobs); unscorable when none parsed. */
export function scoreFromSamples(samples: readonly (number | null)[], format: string): ScoreDetail {
  const ok = samples.filter((s): s is number => s !== null);
  if (ok.length === 0)
    return { method: 'sampled', format, expected: null, argmax: null, samples: [...samples], unscorable: 'no sampled verdict had a parsable score' };
  const mean = ok.reduce((a, b) => a + b, 0) / ok.length;
  const counts = [1, 2, 3, 4, 5].map((k) => ok.filter((s) => s === k).length);
  return { method: 'sampled', format, expected: mean, argmax: counts.indexOf(Math.max(...counts)) + 1, samples: [...samples] };
}
