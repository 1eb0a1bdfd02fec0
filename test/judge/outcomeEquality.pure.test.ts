import { describe, expect, it } from 'vitest';
import { outcomesEqual, valuesEqual, type Encoded, type EqualityOptions, type Outcome } from '../../domain/judge/outcomeEquality';

const f = (x: number | 'nan' | 'inf' | '-inf' | '-0.0'): Encoded => ({ float: x });
const t = (...xs: Encoded[]): Encoded => ({ tuple: xs });
const s = (...xs: Encoded[]): Encoded => ({ set: xs });
const d = (...kv: [Encoded, Encoded][]): Encoded => ({ dict: kv });

// [description, a, b, expected, options]
const pairs: [string, Encoded, Encoded, boolean, Partial<EqualityOptions>?][] = [
  ['None == None', null, null, true],
  ['None != 0', null, 0, false],
  ['True != 1 (bool is not int)', true, 1, false],
  ['False != 0', false, 0, false],
  ['True == True', true, true, true],
  ['1 != 1.0 by default', 1, f(1), false],
  ['1 == 1.0 with intEqualsFloat', 1, f(1), true, { intEqualsFloat: true }],
  ['True != 1.0 even with intEqualsFloat', true, f(1), false, { intEqualsFloat: true }],
  ['0.1+0.2 == 0.3 within tolerance', f(0.1 + 0.2), f(0.3), true],
  ['1.0 != 1.001 at default tolerance', f(1), f(1.001), false],
  ['1.0 == 1.001 at relTol 1e-2', f(1), f(1.001), true, { relTol: 1e-2 }],
  ['1e-12 == 0.0 by absTol', f(1e-12), f(0), true],
  ['1e-12 != 0.0 with absTol 0', f(1e-12), f(0), false, { absTol: 0 }],
  ['nan == nan', f('nan'), f('nan'), true],
  ['nan != 0.0', f('nan'), f(0), false],
  ['inf == inf', f('inf'), f('inf'), true],
  ['inf != -inf', f('inf'), f('-inf'), false],
  ['inf != 1e308', f('inf'), f(1e308), false],
  ['-0.0 == 0.0', f('-0.0'), f(0), true],
  ['big ints by digits', { int: '123456789012345678901234567890' }, { int: '123456789012345678901234567890' }, true],
  ['big ints differ by one', { int: '123456789012345678901234567890' }, { int: '123456789012345678901234567891' }, false],
  ['"1" != 1', '1', 1, false],
  ['"abc" == "abc"', 'abc', 'abc', true],
  ['[1,2] == [1,2]', [1, 2], [1, 2], true],
  ['[1,2] != [2,1] (lists are ordered)', [1, 2], [2, 1], false],
  ['(1,2) != [1,2] by default', t(1, 2), [1, 2], false],
  ['(1,2) == [1,2] with tupleEqualsList', t(1, 2), [1, 2], true, { tupleEqualsList: true }],
  ['nested tuple vs list inside a list', [t(1, 2)], [[1, 2]], false],
  ['[1.0] vs [1.0000000001]', [f(1)], [f(1.0000000001)], true],
  ['{1,2} == {2,1} (order-free)', s(1, 2), s(2, 1), true],
  ['{1,2} != {1,3}', s(1, 2), s(1, 3), false],
  ['set == frozenset', s(1), { frozenset: [1] }, true],
  ['set != list', s(1, 2), [1, 2], false],
  ['{0.1+0.2} == {0.3} (tolerance inside sets)', s(f(0.30000000000000004)), s(f(0.3)), true],
  ["{'a':1,'b':2} == {'b':2,'a':1}", d(['a', 1], ['b', 2]), d(['b', 2], ['a', 1]), true],
  ["{'a':1} != {'a':2}", d(['a', 1]), d(['a', 2]), false],
  ["{'a':1} != {'a':1,'b':2}", d(['a', 1]), d(['a', 1], ['b', 2]), false],
  ['{1: x} != {True: x} (keys are type-aware)', d([1, 'x']), d([true, 'x']), false],
  ['dict != list of pairs', d(['a', 1]), [['a', 1]], false],
  ['bytes == bytearray', { bytes: 'YWI=' }, { bytearray: 'YWI=' }, true],
  ['bytes != str', { bytes: 'YWI=' }, 'ab', false],
  ['complex by parts', { complex: [f(1), f(2)] }, { complex: [f(1), f(2.0000000001)] }, true],
  ['complex differs', { complex: [f(1), f(2)] }, { complex: [f(1), f(-2)] }, false],
  ['opaque by type and repr', { other: { type: 'Foo', repr: '<Foo>' } }, { other: { type: 'Foo', repr: '<Foo>' } }, true],
  ['opaque type differs', { other: { type: 'Foo', repr: '<x>' } }, { other: { type: 'Bar', repr: '<x>' } }, false],
  ['empty list != empty tuple', [], t(), false],
  ['empty set == empty frozenset', s(), { frozenset: [] }, true],
  ['[nan] == [nan]', [f('nan')], [f('nan')], true],
  ['{"float": 2} != 2 (a float 2.0 is not int 2)', f(2), 2, false],
];

describe('valuesEqual: a table of tricky pairs', () => {
  for (const [name, a, b, expected, options] of pairs) {
    it(name, () => {
      expect(valuesEqual(a, b, options)).toBe(expected);
      expect(valuesEqual(b, a, options)).toBe(expected); // symmetric
    });
  }
});

describe('outcomesEqual', () => {
  const val = (value: Encoded): Outcome => ({ ok: true, value });
  const err = (type: string, message = ''): Outcome => ({ ok: false, error: { type, message } });
  it('exceptions are equal when their types match, whatever the message', () => {
    expect(outcomesEqual(err('ValueError', 'bad'), err('ValueError', 'other'))).toBe(true);
    expect(outcomesEqual(err('ValueError'), err('TypeError'))).toBe(false);
  });
  it('messages count only when asked', () => {
    expect(outcomesEqual(err('ValueError', 'a'), err('ValueError', 'b'), { compareErrorMessages: true })).toBe(false);
  });
  it('a value never equals an exception', () => {
    expect(outcomesEqual(val(null), err('ValueError'))).toBe(false);
    expect(outcomesEqual(err('ValueError'), val(null))).toBe(false);
  });
  it('values go through valuesEqual', () => {
    expect(outcomesEqual(val([f(1), t('a')]), val([f(1 + 1e-12), t('a')]))).toBe(true);
  });
});
