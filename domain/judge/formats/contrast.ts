// The contrast format (docs/judging.md, "Contrast"): verify's question asked twice of one description, once
// beside its own method and once beside an unrelated method of the same data set; the score is the yes that
// is specific to the method, 1 + 4 max(0, P(yes | own) - P(yes | contrast)). A small judge says yes to a
// description true of any function ("it returns a value computed from its inputs") nearly as often as to the
// right one, and it says so for every function alike; the second question measures that and takes it away.
// A right description is a no beside another method, so it keeps its score. Pure code: which method is the
// contrast, the requests (verify's, twice), and the combined verdict.
import type { JudgeInput } from '../judgePrompt';
import type { ScoreDetail } from '../scoreDistribution';
import type { DescriptionVerdict } from '../types';
import type { JudgeFormatValue, PlannedRequest, ScoreCase } from './index';
import { verify } from './verify';

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
 * Up to `n` methods taken round-robin over sources (sources by name), each source's in their dataset order:
 * the contrast order's first part, and the judge card's methods (the first n of it, so every source with a
 * reference description is represented, CruxEval only through accepted reference descriptions, and a card's
 * method i has method i-1 as its contrast).
 */
export function roundRobinBySource<T extends { id: string; source: string }>(candidates: readonly T[], n: number): T[] {
  const bySource = new Map<string, T[]>();
  for (const c of candidates) {
    const list = bySource.get(c.source);
    if (list) list.push(c);
    else bySource.set(c.source, [c]);
  }
  const queues = [...bySource.keys()].sort().map((k) => bySource.get(k)!);
  const out: T[] = [];
  for (let round = 0; out.length < n; round++) {
    let took = false;
    for (const q of queues) {
      if (out.length >= n) break;
      const c = q[round];
      if (c) {
        out.push(c);
        took = true;
      }
    }
    if (!took) break;
  }
  return out;
}

/**
 * The order contrasts are read from: the methods with a reference taken round-robin over sources (the
 * judge card's order, roundRobinBySource), then those without one in dataset order. Neighbours in it come
 * from different sources, so they are unrelated; and a card's method i (i >= 1) has method i-1 as its
 * contrast, whose `wrong` rung is method i's gold: the card's gold contrasts are judgments it makes anyway.
 */
export function contrastOrder<T extends ContrastCandidate>(candidates: readonly T[]): T[] {
  const withRef = candidates.filter((c) => c.hasReference);
  return [...roundRobinBySource(withRef, withRef.length), ...candidates.filter((c) => !c.hasReference)];
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

/** The contrast verdict from the two verify verdicts: contrastDetail's score, both calls' tokens and cost. */
export function combineContrast(own: DescriptionVerdict, other: DescriptionVerdict | null, contrastMethodId: string | null): DescriptionVerdict {
  const unscored: ScoreDetail = { method: 'logprobs', format: 'verify', expected: null, argmax: null, unscorable: own.rationale.slice(0, 200) };
  const detail = contrastDetail(own.scoreDetail ?? unscored, other ? (other.scoreDetail ?? unscored) : null, contrastMethodId);
  return {
    ...own,
    score: detail.expected,
    unparsable: detail.expected === null,
    rationale: other ? `${own.rationale}\n\n[beside the contrast method ${contrastMethodId}]\n${other.rationale}` : own.rationale,
    tokensIn: own.tokensIn + (other?.tokensIn ?? 0),
    tokensOut: own.tokensOut + (other?.tokensOut ?? 0),
    costUsd: own.costUsd + (other?.costUsd ?? 0),
    scoreDetail: detail,
  };
}

/** A description's request beside its contrast method: the same candidate, the key `<key>/contrast`. */
export function besideContrast(c: ScoreCase, m: ContrastMethod): PlannedRequest {
  return { methodId: m.methodId, callKey: `${c.callKey}/contrast`, input: { ...m.input, agentDescription: c.input.agentDescription }, ask: verify };
}

/**
 * Every description beside its contrast method first, then every description beside its own method. The
 * judge card scores one method's rungs together: its contrast method is the method the judge scored just
 * before (the card's order, one method at a time), whose prefix the server still holds; the requests beside
 * this method then leave its prefix for the next method's contrast requests.
 */
function plan(cases: readonly ScoreCase[]) {
  const beside = cases.flatMap((c, i) => (c.contrast ? [{ i, request: besideContrast(c, c.contrast) }] : []));
  const own = cases.map((c): PlannedRequest => ({ methodId: c.methodId, callKey: c.callKey, input: c.input, ask: verify }));
  return {
    requests: [...beside.map((b) => b.request), ...own],
    combine: (verdicts: readonly DescriptionVerdict[]) =>
      cases.map((c, i) => {
        const b = beside.findIndex((x) => x.i === i);
        return combineContrast(verdicts[beside.length + i]!, b >= 0 ? verdicts[b]! : null, c.contrast?.methodId ?? null);
      }),
  };
}

/** Verify's request, asked beside the method and beside its contrast method. */
export const contrast: JudgeFormatValue = { ...verify, name: 'contrast', besideAnother: true, plan };
