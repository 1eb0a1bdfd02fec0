// Probability-weighted judge scores (G-Eval, Liu et al. 2023): the judge's score is the expectation over
// the distribution of its answer token, read from the endpoint's logprobs, not the token it happened to
// emit. A 1.5B judge orders descriptions by that expectation far better than by its argmax, and the
// expectation never ties. Where an endpoint returns no logprobs, the score is the mean of n sampled verdicts.
// Pure code: the score detail stored per judgment and the readings every format shares; each format's own
// reading of its answer token is in domain/judge/formats/.
import { z } from 'zod';

/** Alternatives asked for at each position: enough that all five digits are seen when they carry mass. */
export const TOP_LOGPROBS = 10;

/** Below this share of probability on the answer's values the distribution is flagged (the judge meant something else). */
export const LOW_DIGIT_MASS = 0.5;

/** How a judgment's score was obtained; stored per judgment (judgments.score_detail) and per card rung. */
export const scoreDetailSchema = z.object({
  /** `logprobs`: the expectation over the score token; `sampled`: the mean of n sampled verdicts; `parsed`: one parsed digit. */
  method: z.enum(['logprobs', 'sampled', 'parsed']),
  /** The judge prompt format (domain/judge/formats/). */
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
  /** Contrast format: P(yes) of the same description beside the contrast method (domain/judge/formats/contrast.ts). */
  pYesContrast: z.number().optional(),
  /** Contrast format: the method the description was also judged beside. */
  contrastMethodId: z.string().optional(),
  /** Contrast format with no other method stored to ask beside: the score is verify's. */
  noContrast: z.boolean().optional(),
});
export type ScoreDetail = z.infer<typeof scoreDetailSchema>;

/** The mean of n sampled verdicts (an endpoint without logprobs); unscorable when none parsed. */
export function scoreFromSamples(samples: readonly (number | null)[], format: string): ScoreDetail {
  const ok = samples.filter((s): s is number => s !== null);
  if (ok.length === 0)
    return { method: 'sampled', format, expected: null, argmax: null, samples: [...samples], unscorable: 'no sampled verdict had a parsable score' };
  const mean = ok.reduce((a, b) => a + b, 0) / ok.length;
  const counts = [1, 2, 3, 4, 5].map((k) => ok.filter((s) => s === k).length);
  return { method: 'sampled', format, expected: mean, argmax: counts.indexOf(Math.max(...counts)) + 1, samples: [...samples] };
}
