// Values round-trip through the typed encoding; exceptions keep their Python types; every limit has its
// own error and the next call runs normally.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SandboxPool } from '../../activities/sandbox/index';
import { canonical, decodeValue, encodeValue } from '../../domain/python/codec';
import { repr } from '../../domain/python/print';
import { valuesEqual } from '../../domain/judge/outcomeEquality';
import { call1, newPool } from './helpers';

let pool: SandboxPool;
beforeAll(async () => {
  pool = newPool();
  await pool.mode();
});
afterAll(async () => {
  await pool.close();
});

const ID = 'def f(x):\n    return x\n';

describe('value round-trips', () => {
  const cases: [string, string][] = [
    ['big int', '2**200'],
    ['negative big int', '-(2**70)'],
    ['nan', "float('nan')"],
    ['inf', "float('inf')"],
    ['-inf', "-float('inf')"],
    ['-0.0', '-0.0'],
    ['float', '0.1'],
    ['int vs float', '[1, 1.0, True]'],
    ['tuple vs list', '[(1, 2), [1, 2], (), (1,)]'],
    ['sets', "[{1, 2, 3}, frozenset({'a'}), set()]"],
    ['dict with tuple keys', "{(1, 2): 'a', (3,): [1], 'k': {2: None}}"],
    ['bytes', "[b'\\x00\\xff abc', bytearray(b'xy')]"],
    ['unicode', "'héllo ✓ 🎉 \\u0000'"],
    ['nesting', "{'a': [({1: (2, {3})},)]}"],
    ['complex', '1.5-2j'],
  ];
  for (const [name, expr] of cases) {
    it(name, async () => {
      const r = await call1(pool, `def f():\n    return ${expr}\n`);
      expect(r.ok, JSON.stringify(r)).toBe(true);
      if (!r.ok) return;
      const v = decodeValue(r.value);
      // decode -> encode is the identity, and the printer's repr is Python's own
      expect(encodeValue(v)).toEqual(r.value);
      if (name !== 'sets') expect(repr(v)).toBe(r.repr); // a set's repr follows its hash order
      // and the value goes back into Python unchanged (as the literal of its repr)
      if (!/nan|inf|bytearray|frozenset/.test(expr)) {
        const back = await call1(pool, ID, [r.repr]);
        expect(back.ok && canonical(decodeValue(back.value))).toBe(canonical(v));
      }
    });
  }

  it('keeps 1, 1.0 and True apart and compares sets order-free', async () => {
    const r = await call1(pool, 'def f():\n    return [1, 1.0, True, {3, 1, 2}]\n');
    if (!r.ok) throw new Error(JSON.stringify(r));
    if (!Array.isArray(r.value)) throw new Error('not a list');
    const [a, b, c, s] = r.value;
    // the judge's equality is the one Python-value equality (domain/judge/outcomeEquality.ts)
    expect(valuesEqual(a!, b!)).toBe(false);
    expect(valuesEqual(a!, c!)).toBe(false);
    expect(valuesEqual(a!, b!, { intEqualsFloat: true })).toBe(true);
    expect(valuesEqual(s!, { set: [3, 2, 1] })).toBe(true);
    expect(canonical(decodeValue(s!))).toBe(canonical(decodeValue({ set: [3, 2, 1] })));
  });

  it('encodes other objects as repr with their type', async () => {
    const r = await call1(pool, 'class P:\n    def __repr__(self):\n        return "P()"\ndef f():\n    return [P(), range(3)]\n');
    expect(r.ok && r.value).toEqual([{ other: { type: 'P', repr: 'P()' } }, { other: { type: 'range', repr: 'range(0, 3)' } }]);
  });

  it('survives a self-referencing list', async () => {
    const r = await call1(pool, 'def f():\n    a = [1]\n    a.append(a)\n    return a\n');
    expect(r.ok).toBe(true);
  });

  it('parses args as a list of strings, as one string, with kwargs', async () => {
    const src = "def f(xs, key='z', *, rev=False):\n    return (sorted(xs, reverse=rev), key)\n";
    const res = await pool.runBatch({
      source: src,
      entry: 'f',
      calls: [['[3, 1, 2]'], "[3, 1, 2], key='a'", ['[2, 1]', "key='b'", 'rev=True'], '', 'os.system("x")', '[1] + [2]'],
    });
    expect(res.results.map((r) => (r.ok ? r.repr : r.error.type))).toEqual([
      "([1, 2, 3], 'z')",
      "([1, 2, 3], 'a')",
      "([2, 1], 'b')",
      'TypeError',
      'BadArguments',
      'BadArguments',
    ]);
  });
});

describe('exceptions and stdout', () => {
  it('keeps the Python exception type and message, and the stdout before it', async () => {
    const r = await call1(pool, 'def f(x):\n    print("about to", x)\n    return 1 // x\n', ['0']);
    expect(r).toMatchObject({ ok: false, error: { type: 'ZeroDivisionError', message: 'integer division or modulo by zero' }, stdout: 'about to 0\n' });
  });
  it('custom exception classes keep their own names', async () => {
    const r = await call1(pool, 'class Boom(ValueError):\n    pass\ndef f():\n    raise Boom("no")\n');
    expect(r).toMatchObject({ ok: false, error: { type: 'Boom', message: 'no' } });
  });
  it('SystemExit and KeyboardInterrupt are results too', async () => {
    expect(await call1(pool, 'def f():\n    raise SystemExit(3)\n')).toMatchObject({ ok: false, error: { type: 'SystemExit' } });
    expect(await call1(pool, 'def f():\n    raise KeyboardInterrupt\n')).toMatchObject({ ok: false, error: { type: 'KeyboardInterrupt' } });
  });
  it('reports a source that does not compile on every call', async () => {
    const r = await pool.runBatch({ source: 'def f(:\n', entry: 'f', calls: [[], []] });
    expect(r.sourceError?.type).toBe('SyntaxError');
    expect(r.results.every((x) => !x.ok && x.error.type === 'SyntaxError')).toBe(true);
  });
  it('reports a missing entry point', async () => {
    expect(await call1(pool, 'def g():\n    return 1\n')).toMatchObject({ ok: false, error: { type: 'EntryNotFound' } });
  });
});

describe('limits', () => {
  it('Timeout on a Python loop, a C loop and a sleep', async () => {
    for (const body of ['while True: pass', 'return sum(range(10**11))', 'import time; time.sleep(30)']) {
      const t = Date.now();
      const r = await call1(pool, `def f():\n    ${body}\n`, [], { timeoutMs: 300 });
      expect(r).toMatchObject({ ok: false, error: { type: 'Timeout' } });
      expect(Date.now() - t).toBeLessThan(5000);
    }
  });
  it('MemoryLimit on a huge allocation', async () => {
    const r = await call1(pool, 'def f():\n    return len(bytearray(2 * 1024**3))\n', [], { memoryMb: 256 });
    expect(r).toMatchObject({ ok: false, error: { type: 'MemoryLimit' } });
  });
  it('OutputLimit on a stdout flood, with the first bytes kept', async () => {
    const r = await call1(pool, "def f():\n    while True:\n        print('x' * 100)\n", [], { stdoutBytes: 1000 });
    expect(r).toMatchObject({ ok: false, error: { type: 'OutputLimit' } });
    expect(r.stdout.length).toBeLessThanOrEqual(1000);
    const raw = await call1(pool, "import os\ndef f():\n    while True:\n        os.write(1, b'y' * 4096)\n", [], { stdoutBytes: 1000 });
    expect(raw).toMatchObject({ ok: false, error: { type: 'OutputLimit' } });
  });
  it('RecursionError at the recursion limit', async () => {
    const r = await call1(pool, 'def f(n):\n    return f(n + 1)\n', ['0'], { recursionLimit: 200 });
    expect(r).toMatchObject({ ok: false, error: { type: 'RecursionError' } });
  });
  it('ResultLimit on a huge result', async () => {
    const r = await call1(pool, "def f():\n    return 'x' * 100000\n", [], { resultBytes: 10_000 });
    expect(r).toMatchObject({ ok: false, error: { type: 'ResultLimit' } });
  });
  it('the next call after each limit runs normally', async () => {
    expect(await call1(pool, 'def f(x):\n    return x * 2\n', ['21'])).toMatchObject({ ok: true, value: 42 });
  });
});
