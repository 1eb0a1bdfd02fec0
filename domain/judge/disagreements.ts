// The held-out inputs on which the code written from the description and the original disagree, as a
// person reads them (input, what the original gave, what the generated code gave), for the episode's
// transcript. Capped: a transcript shows examples, not every input. Pure code.
import { observationText } from '../episode/observation';
import type { CallResult } from '../sandbox/schemas';
import { outcomesEqual, type EqualityOptions } from './outcomeEquality';

export interface HeldoutDisagreement {
  /** The call's arguments (Python literals). */
  input: string;
  /** The original's outcome: the repr, or "ExceptionType: message". */
  expected: string;
  /** The generated code's outcome; `(no code)` when the coder wrote none. */
  got: string;
}

export const MAX_DISAGREEMENTS = 10;

/** `counted` are the indices of `inputs` that count for code match (the others are not compared). */
export function heldoutDisagreements(
  inputs: readonly string[],
  original: readonly CallResult[],
  candidate: readonly CallResult[] | null,
  counted: readonly number[],
  equality: EqualityOptions,
  max = MAX_DISAGREEMENTS,
): HeldoutDisagreement[] {
  const out: HeldoutDisagreement[] = [];
  for (const i of counted) {
    if (out.length >= max) break;
    const o = original[i];
    const c = candidate?.[i];
    if (!o || (c && outcomesEqual(o, c, equality))) continue;
    out.push({ input: inputs[i] ?? '', expected: observationText(o), got: candidate === null ? '(no code)' : c ? observationText(c) : '(no result)' });
  }
  return out;
}
