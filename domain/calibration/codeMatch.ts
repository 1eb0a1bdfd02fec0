// Code match of a candidate against the original on the held-out set, on the inputs the judge counts
// (countedInputs, domain/judge/codeMatchInputs.ts). Pure code.
import { outcomesEqual, type EqualityOptions } from '../judge/outcomeEquality';
import type { CallResult } from '../sandbox/schemas';

/** Share of counted inputs on which the candidate's outcome equals the original's; null when none count. */
export function codeMatchOf(
  original: readonly CallResult[],
  candidate: readonly CallResult[] | null,
  counted: readonly number[],
  equality: EqualityOptions,
): number | null {
  if (counted.length === 0) return null;
  if (!candidate) return 0;
  const equal = counted.filter((i) => candidate[i] && outcomesEqual(original[i]!, candidate[i], equality)).length;
  return equal / counted.length;
}

/** Reprs of the original's most frequent return values on the counted inputs (the constant functions to try). */
export function constantReprs(original: readonly CallResult[], counted: readonly number[], max = 3): string[] {
  const freq = new Map<string, number>();
  for (const i of counted) {
    const r = original[i];
    if (r?.ok) freq.set(r.repr, (freq.get(r.repr) ?? 0) + 1);
  }
  return [...freq.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, max)
    .map(([repr]) => repr);
}
