// MBR-exec (Shi et al., 2022): the code writer samples k programs from one description and the one whose
// behaviour the others agree with most on the held-out inputs is kept. The selection reads the programs'
// outcomes only, never the original's: it uses the inputs, not the answers. Program 0 is the greedy one
// (temperature 0, the single program of k = 1), so ties and k = 1 keep today's choice. Pure code.
import { outcomesEqual, type EqualityOptions } from './outcomeEquality';
import type { Outcome } from '../sandbox/schemas';

/** Programs the code writer samples per description, the greedy one included (1: greedy only). */
export const DEFAULT_CODER_SAMPLES = 1;
/** The most a config may ask for: each program costs a coder request and a sandbox run. */
export const MAX_CODER_SAMPLES = 9;
/** Temperature of programs 1..k-1 (program 0 is greedy); MBR-exec's papers sample at 0.3-0.8. */
export const CODER_SAMPLE_TEMPERATURE = 0.8;

export interface MbrChoice {
  /** Index of the kept program. */
  chosen: number;
  /** Per program: on how many (program, input) pairs another program's outcome equals its own; null: no runnable code. */
  agreement: (number | null)[];
}

/**
 * The program the others agree with most. `programs[i]` is program i's outcomes on the held-out inputs
 * (null: no code, or code that did not compile). Agreement of i = the number of (other program j, input)
 * pairs where both have an outcome and they are equal. Highest agreement wins; ties go to the lower
 * index (the greedy program first); a program without outcomes is kept only when no program has any.
 */
export function chooseByAgreement(programs: readonly (readonly (Outcome | undefined)[] | null)[], equality: Partial<EqualityOptions>): MbrChoice {
  const agreement = programs.map((p, i) => {
    if (!p) return null;
    let n = 0;
    programs.forEach((q, j) => {
      if (j === i || !q) return;
      for (let k = 0; k < Math.min(p.length, q.length); k++) {
        const a = p[k];
        const b = q[k];
        if (a && b && outcomesEqual(a, b, equality)) n++;
      }
    });
    return n;
  });
  let chosen = 0;
  let best = -1;
  agreement.forEach((a, i) => {
    if (a !== null && a > best) {
      best = a;
      chosen = i;
    }
  });
  return { chosen, agreement };
}

/** The call key of program `sample` of a description: program 0 keeps the key a single program always had. */
export function sampleCallKey(callKey: string, sample: number): string {
  return sample === 0 ? callKey : `${callKey}/s${sample}`;
}

/** A config's sample count, checked: an integer in 1..MAX_CODER_SAMPLES. */
export function coderSamplesOf(n: number | undefined): number {
  const k = n ?? DEFAULT_CODER_SAMPLES;
  if (!Number.isInteger(k) || k < 1 || k > MAX_CODER_SAMPLES)
    throw new RangeError(`coder samples must be an integer from 1 to ${MAX_CODER_SAMPLES}, got ${String(n)}`);
  return k;
}
