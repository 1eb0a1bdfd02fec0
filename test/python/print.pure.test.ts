// The one printer (domain/python/print.ts): `repr` is Python's repr (expected texts checked against CPython
// 3.11), `literal` is the stored argument form; both read back to the same value. Round trips with the parser.
import { describe, expect, it } from 'vitest';
import { parseArgs, parseValue } from '../../domain/python/literal';
import { floatRepr, literal, literalArgs, repr } from '../../domain/python/print';
import { bytesOf, type PyValue } from '../../domain/python/value';

const float = (x: number): PyValue => ({ kind: 'float', value: x });
const str = (value: string): PyValue => ({ kind: 'str', value });

describe('floats', () => {
  it('repr as Python writes them: fixed in [1e-4, 1e16), else d.ddde±XX', () => {
    const cases: [number, string][] = [
      [1e-5, '1e-05'],
      [1e-4, '0.0001'],
      [1.5e-7, '1.5e-07'],
      [2.5e-7, '2.5e-07'],
      [0.1, '0.1'],
      [123, '123.0'],
      [9999999999999998, '9999999999999998.0'],
      [1e16, '1e+16'],
      [12345678901234568, '1.2345678901234568e+16'],
      [1e21, '1e+21'],
      [1e22, '1e+22'],
      [-0, '-0.0'],
      [0, '0.0'],
      [Number.POSITIVE_INFINITY, 'inf'],
      [Number.NEGATIVE_INFINITY, '-inf'],
      [Number.NaN, 'nan'],
      [-2.5, '-2.5'],
    ];
    for (const [x, text] of cases) expect(floatRepr(x), text).toBe(text);
  });

  it('literal as stored: JavaScript digits with a .0 where needed, 1e309 for inf', () => {
    expect(literal(float(1e-5))).toBe('0.00001');
    expect(literal(float(1e-7))).toBe('1e-7');
    expect(literal(float(1e16))).toBe('10000000000000000.0');
    expect(literal(float(1e21))).toBe('1e+21');
    expect(literal(float(3))).toBe('3.0');
    expect(literal(float(-0))).toBe('-0.0');
    expect(literal(float(Number.POSITIVE_INFINITY))).toBe('1e309');
    expect(literal(float(Number.NEGATIVE_INFINITY))).toBe('-1e309');
  });
});

describe('repr', () => {
  it('writes scalars, complex numbers and big ints as Python does', () => {
    expect(repr({ kind: 'none' })).toBe('None');
    expect(repr({ kind: 'bool', value: false })).toBe('False');
    expect(repr({ kind: 'int', value: -(2n ** 70n) })).toBe('-1180591620717411303424');
    const c = (re: number, im: number) => repr({ kind: 'complex', re, im });
    expect([c(0, 2), c(1, 2), c(-0, -3), c(1.5, -2), c(1, -0), c(-0, 2), c(1e16, 1), c(0, Number.NaN)]).toEqual([
      '2j',
      '(1+2j)',
      '(-0-3j)',
      '(1.5-2j)',
      '(1-0j)',
      '(-0+2j)',
      '(1e+16+1j)',
      'nanj',
    ]);
  });

  it('quotes and escapes strs as Python does, non-printable characters included', () => {
    expect(repr(str("it's"))).toBe(`"it's"`);
    expect(repr(str(`it's "q"`))).toBe(`'it\\'s "q"'`);
    expect(repr(str('a\\b\n\t\r\x00\x7f'))).toBe("'a\\\\b\\n\\t\\r\\x00\\x7f'");
    expect(repr(str('a\xa0b\u200b\x85😀\u2028é'))).toBe("'a\\xa0b\\u200b\\x85😀\\u2028é'");
    expect(repr(str('\ud800'))).toBe("'\\ud800'"); // a lone surrogate
  });

  it('writes bytes, bytearray and the containers as Python does', () => {
    expect(repr({ kind: 'bytes', value: bytesOf("'") })).toBe(`b"'"`);
    expect(repr({ kind: 'bytes', value: bytesOf(`'"`) })).toBe(`b'\\'"'`);
    expect(repr({ kind: 'bytearray', value: bytesOf('x\xff') })).toBe("bytearray(b'x\\xff')");
    expect(repr({ kind: 'tuple', items: [{ kind: 'tuple', items: [{ kind: 'int', value: 1n }] }] })).toBe('((1,),)');
    expect(repr({ kind: 'frozenset', items: [] })).toBe('frozenset()');
    expect(repr({ kind: 'frozenset', items: [str('a')] })).toBe("frozenset({'a'})");
    expect(repr({ kind: 'set', items: [] })).toBe('set()');
    expect(
      repr({
        kind: 'dict',
        entries: [
          [
            { kind: 'int', value: 1n },
            { kind: 'tuple', items: [{ kind: 'int', value: 2n }] },
          ],
        ],
      }),
    ).toBe('{1: (2,)}');
    expect(repr({ kind: 'other', type: 'range', repr: 'range(0, 3)' })).toBe('range(0, 3)');
  });
});

describe('round trips', () => {
  const texts = [
    '[1, 2, 3], 4',
    "'abc', k=2",
    "{'a': 1, 'b': [1, 2]}, None",
    "(1, 'x'), 2.5, True",
    "b'ab\\x00', -3",
    "\"it's\", 'a\\nb'",
    'set(), {1, 2}',
    '(1,), ()',
    '-0.5, 123456789012345678901234567890',
    "{'k': [(1,), {2: {3}}], (1, 2): b'\\xff'}",
    '(1+2j), 2j, (1.5-2j)',
    '-0.0, 0.00001, 1e+21',
  ];

  it('literal(parse(text)) gives the text back for what ast.unparse writes', () => {
    for (const t of texts) expect(literalArgs(parseArgs(t) as NonNullable<ReturnType<typeof parseArgs>>)).toBe(t);
  });

  it('parse(literal(v)) and parse(repr(v)) give the value back', () => {
    const values: PyValue[] = [
      { kind: 'int', value: 2n ** 200n },
      float(1e-5),
      float(-0),
      float(1e300),
      float(12345678901234568),
      str('tab\there \'q\' "d" \\ é 😀 \x00 \xa0 \u2028'),
      { kind: 'bytes', value: Uint8Array.from([0, 10, 39, 34, 92, 127, 128, 255]) },
      { kind: 'tuple', items: [float(0.1)] },
      { kind: 'set', items: [{ kind: 'tuple', items: [] }] },
      { kind: 'complex', re: 1.5, im: -2 },
      { kind: 'dict', entries: [[str('x'), { kind: 'list', items: [{ kind: 'none' }, { kind: 'bool', value: true }] }]] },
    ];
    for (const v of values) {
      expect(parseValue(literal(v)), literal(v)).toEqual(v);
      expect(parseValue(repr(v)), repr(v)).toEqual(v);
    }
    // inf has no repr that is a literal; its literal form reads back
    expect(parseValue(literal(float(Number.POSITIVE_INFINITY)))).toEqual(float(Number.POSITIVE_INFINITY));
  });
});
