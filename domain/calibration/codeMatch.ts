// The calibration suite's baselines scored like code match (domain/judge/codeMatch.ts): the constant
// functions to try and the lookup table of the observed inputs. Pure code.
import { codeMatchOf, unobservedInputs } from '../judge/codeMatch';
import type { EqualityOptions } from '../judge/outcomeEquality';
import type { Outcome } from '../sandbox/schemas';

/**
 * Reprs of the original's most frequent return values on the counted inputs (the constant functions to try):
 * sandbox results, or the outcomes a dataset row stored (domain/dataset/outcome.ts).
 */
export function constantReprs(original: readonly { ok: boolean; repr?: string }[], counted: readonly number[], max = 3): string[] {
  const freq = new Map<string, number>();
  for (const i of counted) {
    const r = original[i];
    if (r?.ok && r.repr !== undefined) freq.set(r.repr, (freq.get(r.repr) ?? 0) + 1);
  }
  return [...freq.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, max)
    .map(([repr]) => repr);
}

const NONE: Outcome = { ok: true, value: null, repr: 'None' };

/**
 * The lookup-table baseline: a function that answers the inputs of its table (what an agent observed, or
 * its in-context examples) with the original's outcomes and returns None on every other input: a
 * description that tabulates the evidence and generalises nothing. Scored like code match, on the
 * counted held-out inputs outside the table only (null when none is left). On the table's own inputs it
 * would score 100% by construction, which is why the judge's headline code match leaves observed inputs out.
 */
export function lookupTableCodeMatch(
  original: readonly Outcome[],
  heldout: readonly string[],
  counted: readonly number[],
  table: readonly string[],
  equality: EqualityOptions,
): { codeMatch: number | null; unseen: number; seen: number } {
  const unseen = unobservedInputs(heldout, counted, table);
  const inTable = new Set(counted.filter((i) => !unseen.includes(i)));
  const candidate = original.map((o, i) => (inTable.has(i) ? o : NONE));
  return { codeMatch: codeMatchOf(original, candidate, unseen, equality), unseen: unseen.length, seen: inTable.size };
}
