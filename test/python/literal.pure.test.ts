// The one Python literal tokenizer and parser (domain/python/literal.ts). Number rules are Python's own;
// the cases marked "was" are where the two tokenizers this one replaced disagreed with Python (and each
// other). Expected values were checked against CPython 3.11.
import { describe, expect, it } from 'vitest';
import { parseArgs, parseValue, tokenize } from '../../domain/python/literal';
import { bytesOf, type PyValue } from '../../domain/python/value';

const int = (n: number | bigint): PyValue => ({ kind: 'int', value: BigInt(n) });
const float = (x: number): PyValue => ({ kind: 'float', value: x });
const str = (value: string): PyValue => ({ kind: 'str', value });

describe('tokenize', () => {
  it('loses nothing: the tokens join back to the text', () => {
    for (const t of ["[1, -2.5], 'a,b', key=True", "  {'x': (1,)}\n", 'f(1) @ $', '"""a\'\'\'b"""  rb"\\x"']) {
      expect(
        tokenize(t)
          .map((x) => x.text)
          .join(''),
      ).toBe(t);
    }
  });

  it('names each kind', () => {
    expect(tokenize("[1, -2.5], 'a,b', key=True").map((t) => `${t.kind}:${t.text}`)).toEqual([
      'op:[',
      'num:1',
      'op:,',
      'space: ',
      'op:-',
      'num:2.5',
      'op:]',
      'op:,',
      'space: ',
      "str:'a,b'",
      'op:,',
      'space: ',
      'name:key',
      'op:=',
      'name:True',
    ]);
    expect(tokenize('x @')[2]).toEqual({ kind: 'other', text: '@' });
  });

  it("reads a number token by Python's rules", () => {
    const nums = (t: string) => tokenize(t).map((x) => `${x.kind}:${x.text}`);
    expect(nums('1e1_0')).toEqual(['num:1e1_0']); // was split into `1e1` and the name `_0` by the held-out tokenizer
    expect(nums('1__0')).toEqual(['num:1', 'name:__0']); // was one number
    expect(nums('1_')).toEqual(['num:1', 'name:_']); // was one number
    expect(nums('01')).toEqual(['num:0', 'num:1']); // was the int 1
    expect(nums('0x_')).toEqual(['num:0', 'name:x_']); // was a broken hex token
    expect(nums('1._5')).toEqual(['num:1.', 'name:_5']);
    for (const ok of ['0x_ff', '0_0', '00', '09.5', '1.', '.5', '1.e5', '1E+5J', '09j', '0o17', '0b1_0', '1_000.000_1'])
      expect(nums(ok)).toEqual([`num:${ok}`]);
  });

  it('takes only the string prefixes Python has (r, u, b, br, rb in any case)', () => {
    for (const p of ['', 'r', 'u', 'b', 'R', 'U', 'B', 'br', 'rB', 'Rb', 'BR']) expect(tokenize(`${p}'x'`)).toEqual([{ kind: 'str', text: `${p}'x'` }]);
    for (const p of ['ub', 'ur', 'bb', 'f']) expect(tokenize(`${p}'x'`)[0]).toEqual({ kind: 'name', text: p });
  });
});

describe('parseValue / parseArgs', () => {
  it('reads numbers as Python does', () => {
    expect(parseValue('1e1_0')).toEqual(float(1e10));
    expect(parseValue('0x_ff')).toEqual(int(255));
    expect(parseValue('0o17')).toEqual(int(15));
    expect(parseValue('0b1_0')).toEqual(int(2));
    expect(parseValue('00')).toEqual(int(0));
    expect(parseValue('09.5')).toEqual(float(9.5));
    expect(parseValue('1.')).toEqual(float(1));
    expect(parseValue('.5')).toEqual(float(0.5));
    expect(parseValue('1e-5')).toEqual(float(0.00001));
    expect(parseValue('1e309')).toEqual(float(Number.POSITIVE_INFINITY));
    expect(parseValue('-0.0')).toEqual(float(-0));
    expect(Object.is((parseValue('-0.0') as { value: number }).value, -0)).toBe(true);
    expect(parseValue('123456789012345678901234567890')).toEqual(int(123456789012345678901234567890n));
    expect(parseValue('-2**3')).toBeNull(); // an expression, not a literal
    expect(parseValue('--5')).toEqual(int(5));
  });

  it('rejects the numbers Python rejects', () => {
    for (const bad of ['1__0', '1_', '01', '0x_', '1_.5', '1._5', '0x', '1e', '1e_1']) expect(parseValue(bad), bad).toBeNull();
  });

  it('reads complex numbers', () => {
    expect(parseValue('2j')).toEqual({ kind: 'complex', re: 0, im: 2 });
    expect(parseValue('1+2j')).toEqual({ kind: 'complex', re: 1, im: 2 });
    expect(parseValue('(1.5-2J)')).toEqual({ kind: 'complex', re: 1.5, im: -2 });
    expect(parseValue('-3j')).toEqual({ kind: 'complex', re: -0, im: -3 });
  });

  it('reads strings: escapes, raw strings, triple quotes, concatenation; bytes', () => {
    expect(parseValue(String.raw`'a\tb\\c\'d\x41\101\u00e9\U0001F600'`)).toEqual(str("a\tb\\c'dAAé😀"));
    expect(parseValue(String.raw`r'a\n'`)).toEqual(str('a\\n'));
    expect(parseValue(String.raw`'\q'`)).toEqual(str('\\q')); // an unknown escape stays, as in Python
    expect(parseValue(`'''a\n'b'''`)).toEqual(str("a\n'b"));
    expect(parseValue(`'ab' "cd"`)).toEqual(str('abcd'));
    expect(parseValue(String.raw`b'\x00\xffA'`)).toEqual({ kind: 'bytes', value: bytesOf('\x00\xffA') });
    expect(parseValue(`b'a' 'b'`)).toBeNull(); // bytes and str do not concatenate
    expect(parseValue(`b'é'`)).toBeNull(); // bytes hold ASCII characters only
    expect(parseValue(String.raw`'\N{DASH}'`)).toBeNull(); // not handled: refused, never misread
  });

  it('reads containers: nested, sets, set(), tuples of one and none, trailing commas, dict order', () => {
    expect(parseValue('(1,)')).toEqual({ kind: 'tuple', items: [int(1)] });
    expect(parseValue('(1)')).toEqual(int(1));
    expect(parseValue('()')).toEqual({ kind: 'tuple', items: [] });
    expect(parseValue('set()')).toEqual({ kind: 'set', items: [] });
    expect(parseValue('{}')).toEqual({ kind: 'dict', entries: [] });
    expect(parseValue('{2, 1,}')).toEqual({ kind: 'set', items: [int(2), int(1)] });
    expect(parseValue("{'b': [1, (2,)], 'a': {None: True}}")).toEqual({
      kind: 'dict',
      entries: [
        [str('b'), { kind: 'list', items: [int(1), { kind: 'tuple', items: [int(2)] }] }],
        [str('a'), { kind: 'dict', entries: [[{ kind: 'none' }, { kind: 'bool', value: true }]] }],
      ],
    });
  });

  it('reads an argument list with keywords, and refuses what is not one', () => {
    expect(parseArgs("1, [2], k='x', j=None")).toEqual({
      args: [int(1), { kind: 'list', items: [int(2)] }],
      kwargs: [
        ['k', str('x')],
        ['j', { kind: 'none' }],
      ],
    });
    expect(parseArgs('')).toEqual({ args: [], kwargs: [] });
    expect(parseArgs('1, x')).toBeNull();
    expect(parseArgs('f(1)')).toBeNull();
    expect(parseArgs('k=1, 2')).toBeNull();
    expect(parseArgs('1 2')).toBeNull();
    expect(parseArgs('[1, 2')).toBeNull();
    expect(parseArgs('1 @ 2')).toBeNull();
  });
});
