// Code match of a candidate against the original on the held-out set, on the inputs the judge counts
// (countedInputs, codeMatchInputs.ts): the one share a judgment (judgment.ts), the judge card and the
// calibration suite compute. Pure code.
import { outcomesEqual, type EqualityOptions } from './outcomeEquality';
import type { Outcome } from '../sandbox/schemas';

/** Share of counted inputs on which the candidate's outcome equals the original's; null when none count. */
export function codeMatchOf(
  original: readonly Outcome[],
  candidate: readonly (Outcome | undefined)[] | null,
  counted: readonly number[],
  equality: EqualityOptions,
): number | null {
  if (counted.length === 0) return null;
  if (!candidate) return 0;
  const equal = counted.filter((i) => candidate[i] && outcomesEqual(original[i]!, candidate[i], equality)).length;
  return equal / counted.length;
}
