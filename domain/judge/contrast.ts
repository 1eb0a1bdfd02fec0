// The contrast format's score (docs/judging.md, "Contrast"): the judge's verify question asked twice of
// one description, once beside its own method and once beside an unrelated method of the same data set;
// the score is the yes that is specific to the method, 1 + 4 max(0, P(yes | own) - P(yes | contrast)).
// A small judge says yes to a description true of any function ("it returns a value computed from its
// inputs") nearly as often as to the right one, and it says so for every function alike; the second
// question measures that and takes it away. A right description is a no beside another method, so it keeps
// its score. Pure code: which method is the contrast, and the combined score detail.
import { pickCardMethods } from './cardRungs';
import type { JudgeInput } from './judgePrompt';
import type { ScoreDetail } from './scoreDistribution';

/** The contrast method as the judge sees it: its id, signature, code and reference (never a candidate). */
export interface ContrastMethod {
  methodId: string;
  input: Omit<JudgeInput, 'agentDescription'>;
}

export interface ContrastCandidate {
  id: string;
  source: string;
  /** Whether the method has a gold or accepted reference description (the card's methods all do). */
  hasReference: boolean;
}

/**
 * The order contrasts are read from: the methods with a reference taken round-robin over sources (the
 * judge card's order, pickCardMethods), then those without one in dataset order. Neighbours in it come
 * from different sources, so they are unrelated; and a card's method i (i >= 1) has method i-1 as its
 * contrast, whose `wrong` rung is method i's gold: the card's gold contrasts are judgments it makes anyway.
 */
export function contrastOrder<T extends ContrastCandidate>(candidates: readonly T[]): T[] {
  const withRef = candidates.filter((c) => c.hasReference);
  return [...pickCardMethods(withRef, withRef.length), ...candidates.filter((c) => !c.hasReference)];
}

/** The contrast of a method: the one before it in the order (cyclic); null when it is alone or absent. */
export function contrastMethodId(order: readonly { id: string }[], methodId: string): string | null {
  const i = order.findIndex((m) => m.id === methodId);
  if (i < 0 || order.length < 2) return null;
  return order[(i - 1 + order.length) % order.length]!.id;
}

/** P(yes) of a verify verdict: the logprob path's pYes, or the sampled mean read back from the 1..5 scale (yes 5, no 1). */
export function verdictYes(d: ScoreDetail): number | null {
  if (d.pYes !== undefined) return d.pYes;
  return d.expected === null ? null : (d.expected - 1) / 4;
}

/**
 * The contrast score from the two verify verdicts. Unscorable (expected null, with the reason) when either
 * verdict is; with no other method stored at all, verify's score flagged `noContrast`.
 */
export function contrastDetail(own: ScoreDetail, other: ScoreDetail | null, contrastMethodId: string | null): ScoreDetail {
  const base = { method: own.method, format: 'contrast' } as const;
  const pOwn = verdictYes(own);
  if (pOwn === null) return { ...base, expected: null, argmax: null, unscorable: own.unscorable ?? 'the verdict on the method has no yes or no' };
  // No other method stored at all (a one-method fixture): verify's score, flagged, rather than no score.
  if (!other || contrastMethodId === null) return { ...own, format: 'contrast', pYes: pOwn, noContrast: true };
  const pOther = verdictYes(other);
  if (pOther === null)
    return {
      ...base,
      expected: null,
      argmax: null,
      pYes: pOwn,
      contrastMethodId,
      unscorable: `the verdict beside the contrast method is unscorable: ${other.unscorable ?? 'no yes or no'}`,
    };
  const specific = Math.max(0, pOwn - pOther);
  const lowMass = own.lowMass || other.lowMass;
  return {
    ...base,
    expected: 1 + 4 * specific,
    argmax: specific >= 0.5 ? 5 : 1,
    dist: [1 - specific, 0, 0, 0, specific],
    ...(own.mass !== undefined ? { mass: Math.min(own.mass, other.mass ?? own.mass) } : {}),
    ...(lowMass ? { lowMass: true } : {}),
    ...(own.samples ? { samples: own.samples } : {}),
    pYes: pOwn,
    pYesContrast: pOther,
    contrastMethodId,
  };
}
