// Code match on the held-out inputs the agent never observed (issue 27, item 6), pure: which inputs are
// unseen (argument lists compared by their canonical form), and the lookup-table baseline that answers
// the observed inputs right and nothing else scores on observed points only.
import { describe, expect, it } from 'vitest';
import { lookupTableCodeMatch } from '../../domain/calibration/codeMatch';
import { codeMatchOf, unobservedInputs } from '../../domain/judge/codeMatch';
import { DEFAULT_EQUALITY } from '../../domain/judge/outcomeEquality';
import type { Outcome } from '../../domain/sandbox/schemas';

const int = (n: number): Outcome => ({ ok: true, value: { int: String(n) }, repr: String(n) });

describe('unseen held-out inputs', () => {
  it('leaves out counted inputs the agent observed, compared by canonical argument text', () => {
    const heldout = ['0', '1, 2', "'a'", '[1,2]', '7'];
    const counted = [0, 1, 2, 3]; // 7 did not count (say the original timed out)
    // Spacing and quoting differ from the held-out text: still the same input.
    expect(unobservedInputs(heldout, counted, ['1,2', '"a"', '99'])).toEqual([0, 3]);
    expect(unobservedInputs(heldout, counted, [])).toEqual(counted);
    // A call that is not a literal argument list is compared by its whitespace-free text.
    expect(unobservedInputs(['f(1)', '2'], [0, 1], ['f( 1 )'])).toEqual([1]);
  });

  it('a lookup-table description scores on the observed points and 0 on the unseen ones', () => {
    // The original doubles x; held-out inputs 3 and 5 were observed, 7 and -2 were not.
    const heldout = ['3', '5', '7', '-2'];
    const original = [int(6), int(10), int(14), int(-4)];
    const counted = [0, 1, 2, 3];
    const observed = ['3', ' 5', '1'];
    const l = lookupTableCodeMatch(original, heldout, counted, observed, DEFAULT_EQUALITY);
    expect(l).toEqual({ codeMatch: 0, unseen: 2, seen: 2 });
    // Counted over every held-out input (the older figure), the same table scores half.
    const none: Outcome = { ok: true, value: null, repr: 'None' };
    expect(codeMatchOf(original, [int(6), int(10), none, none], counted, DEFAULT_EQUALITY)).toBe(0.5);
    // Where the original itself returns None off the table, the table's None matches: the baseline is a floor, not 0 by definition.
    expect(lookupTableCodeMatch([int(6), none], ['3', '4'], [0, 1], ['3'], DEFAULT_EQUALITY).codeMatch).toBe(1);
    // Every counted input observed: nothing left to score.
    expect(lookupTableCodeMatch(original, heldout, counted, heldout, DEFAULT_EQUALITY)).toEqual({ codeMatch: null, unseen: 0, seen: 4 });
  });
});
