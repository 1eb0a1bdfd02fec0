// The sandbox codec (domain/python/codec.ts): the wire encoding to values and back, and the canonical key.
import { describe, expect, it } from 'vitest';
import { canonical, decodeValue, type EncodedValue, encodeValue, encodedValueSchema } from '../../domain/python/codec';
import { parseValue } from '../../domain/python/literal';
import { repr } from '../../domain/python/print';

describe('the sandbox codec', () => {
  it('decodes every tag and encodes back to the same wire form', () => {
    const wire: EncodedValue[] = [
      null,
      true,
      7,
      'é',
      { int: '-1267650600228229401496703205376' },
      { float: 1.5 },
      { float: 'nan' },
      { float: 'inf' },
      { float: '-inf' },
      { float: '-0.0' },
      { bytes: 'AP9h' },
      { bytearray: '' },
      { complex: [{ float: 1 }, { float: '-0.0' }] },
      [1, { tuple: [2] }],
      { set: [1, 2] },
      { frozenset: ['a'] },
      { dict: [['k', { tuple: [] }]] },
      { other: { type: 'range', repr: 'range(0, 3)' } },
    ];
    for (const e of wire) {
      expect(encodedValueSchema.parse(e)).toEqual(e);
      expect(encodeValue(decodeValue(e))).toEqual(e);
    }
    expect(repr(decodeValue({ bytes: 'AP9h' }))).toBe("b'\\x00\\xffa'");
    expect(repr(decodeValue({ int: '-1267650600228229401496703205376' }))).toBe('-1267650600228229401496703205376');
  });

  it('sends a big int tagged and a safe one plain', () => {
    expect(encodeValue(parseValue('9007199254740991')!)).toBe(9007199254740991);
    expect(encodeValue(parseValue('9007199254740992')!)).toEqual({ int: '9007199254740992' });
  });

  it('refuses what is not an encoding', () => {
    expect(() => decodeValue(1.5)).toThrow(/untagged non-integer/);
    expect(() => decodeValue({ float: 'x' } as unknown as EncodedValue)).toThrow(/bad float/);
    expect(() => decodeValue({ nope: 1 } as unknown as EncodedValue)).toThrow(/unknown value tag/);
    expect(encodedValueSchema.safeParse({ int: '1.5' }).success).toBe(false);
  });

  it('gives equal canonical keys to equal values only (sets and dicts order-free, types kept apart)', () => {
    const key = (e: EncodedValue) => canonical(decodeValue(e));
    expect(key({ set: [3, 1, 2] })).toBe(key({ set: [1, 2, 3] }));
    expect(
      key({
        dict: [
          ['a', 1],
          ['b', 2],
        ],
      }),
    ).toBe(
      key({
        dict: [
          ['b', 2],
          ['a', 1],
        ],
      }),
    );
    expect(new Set([key(1), key({ float: 1 }), key(true), key([1]), key({ tuple: [1] })]).size).toBe(5);
    expect(key({ float: 'nan' })).toBe(key({ float: 'nan' }));
    expect(key({ float: '-0.0' })).not.toBe(key({ float: 0 }));
    expect(key([{ set: [2, 1] }])).toBe(key([{ set: [1, 2] }]));
    // encodeValue orders a set canonically, so the wire form of equal sets is equal too
    expect(encodeValue(decodeValue({ set: ['b', 'a'] }))).toEqual({ set: ['a', 'b'] });
  });
});
