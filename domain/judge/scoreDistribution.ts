// How a judgment's score was obtained (judgments.score_detail, a card rung's score). Probability-weighted
// judge scores (G-Eval, Liu et al. 2023): the judge's score is the expectation over the distribution of its
// answer token, read from the endpoint's logprobs, not the token it happened to emit. A 1.5B judge orders
// descriptions by that expectation far better than by its argmax, and the expectation never ties. Where an
// endpoint returns no logprobs, the score is the mean of n sampled verdicts. Each format's reading of its
// answer token: domain/judge/formats/; the sampled mean: judgePrompt.ts. Pure code.
import { z } from 'zod';

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
  /** mass < LOW_DIGIT_MASS (judgePrompt.ts): the score token was mostly not a digit. */
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
