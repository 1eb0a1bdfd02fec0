// The typed input generator (domain/inputs): determinism, types, keyword arguments, edge values, the literal
// codec; and every generated input is accepted by the sandbox's own argument parser (real Python).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { env, PROJECT_ROOT } from '../../config/env';
import { fingerprintPlan, generateInputs, inContextExamples, inputKey, inputSpec, type SignatureInfo } from '../../domain/inputs/generator';
import { parseArgs } from '../../domain/python/literal';
import { literalArgs } from '../../domain/python/print';
import type { PyValue } from '../../domain/python/value';

const gen = (known: string[], count: number, seedKey = 'm/1', extra: { seed?: number; purpose?: 'heldout' | 'examples' } = {}) =>
  generateInputs(inputSpec(known), { count, seedKey, purpose: extra.purpose ?? 'heldout', ...(extra.seed !== undefined ? { seed: extra.seed } : {}) });
const values = (texts: string[]) => texts.map((t) => parseArgs(t)!);

/** Parses each argument text with sandbox/args.py (what the sandbox does before a call) and returns repr(args, kwargs). */
function pythonParse(texts: string[]): { ok: boolean; out: string }[] {
  const script = [
    'import json, sys',
    `sys.path.insert(0, ${JSON.stringify(path.join(PROJECT_ROOT, 'sandbox'))})`,
    'from args import parse_call, BadArguments',
    'out = []',
    'for t in json.load(sys.stdin):',
    '    try:',
    '        a, k = parse_call(t)',
    '        out.append({"ok": True, "out": repr((a, k))})',
    '    except BadArguments as e:',
    '        out.append({"ok": False, "out": str(e)})',
    'print(json.dumps(out))',
  ].join('\n');
  const r = spawnSync(env().PAU_PYTHON, ['-I', '-c', script], { input: JSON.stringify(texts), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as { ok: boolean; out: string }[];
}

// Parsing and printing alone: test/python/*.pure.test.ts; here, what Python itself makes of the printed text.
describe('Python literal codec', () => {
  it('its output means the same values to Python', () => {
    const texts = ["'a\\tb\\\\c', \"q'\"", '[1.0, -2.5e-07, 1e+21]', "{(1, 'a'): {2, 3}}, b'\\xff'", "'\\u00e9\\U0001F600'"];
    const printed = texts.map((t) => literalArgs(parseArgs(t)!));
    expect(pythonParse(printed).map((r) => r.out)).toEqual(pythonParse(texts).map((r) => r.out));
  });
});

describe('typed generation', () => {
  it('is deterministic by (method, purpose, seed) and varies with each', () => {
    const known = ['[3, 1, 2], 2', '[5, -1], 0'];
    expect(gen(known, 12)).toEqual(gen(known, 12));
    expect(gen(known, 12, 'm/2')).not.toEqual(gen(known, 12));
    expect(gen(known, 12, 'm/1', { seed: 2 })).not.toEqual(gen(known, 12));
    expect(gen(known, 12, 'm/1', { purpose: 'examples' })).not.toEqual(gen(known, 12));
  });

  it('keeps each argument type: ints, floats, strings, lists of ints, dicts, sets, fixed-arity tuples, nesting', () => {
    const out = values(gen(["[1, 2], 3, 2.5, 'ab', {'x': 1}, {4, 5}, (1, 'a'), [[1], [2, 3]]"], 40));
    expect(out).toHaveLength(40);
    for (const a of out) {
      expect(a.args.map((v) => v.kind)).toEqual(['list', 'int', 'float', 'str', 'dict', 'set', 'tuple', 'list']);
      const [list, , , , dict, set, tuple, nested] = a.args as [
        Extract<PyValue, { items: PyValue[] }>,
        PyValue,
        PyValue,
        PyValue,
        Extract<PyValue, { kind: 'dict' }>,
        Extract<PyValue, { items: PyValue[] }>,
        Extract<PyValue, { items: PyValue[] }>,
        Extract<PyValue, { items: PyValue[] }>,
      ];
      expect(list.items.every((v) => v.kind === 'int')).toBe(true);
      expect(dict.entries.every(([k, v]) => k.kind === 'str' && v.kind === 'int')).toBe(true);
      expect(set.items.every((v) => v.kind === 'int')).toBe(true);
      expect(tuple.items.map((v) => v.kind)).toEqual(['int', 'str']);
      expect(nested.items.every((v) => v.kind === 'list' && v.items.every((x) => x.kind === 'int'))).toBe(true);
    }
  });

  it('mixes in edge values: 0, -1, empty strings and containers, one element, many elements, case variants', () => {
    const ints = values(gen(['5', '12'], 60)).map((a) => (a.args[0] as { value: bigint }).value);
    expect(ints).toEqual(expect.arrayContaining([0n, -1n, 1n]));
    expect(ints.some((v) => v > 12n)).toBe(true);
    const strs = values(gen(["'Hello World'", "'abc'"], 60)).map((a) => (a.args[0] as { value: string }).value);
    expect(strs).toEqual(expect.arrayContaining(['', 'HELLO WORLD', 'hello world']));
    expect(strs.some((s) => s.length === 1)).toBe(true);
    expect(strs.some((s) => /\d/.test(s))).toBe(true);
    expect(strs.some((s) => s.includes(' '))).toBe(true);
    const lens = values(gen(['[1, 2, 3]'], 60)).map((a) => (a.args[0] as { items: PyValue[] }).items.length);
    expect(lens).toEqual(expect.arrayContaining([0, 1]));
    expect(Math.max(...lens)).toBeGreaterThanOrEqual(5);
    const bools = values(gen(['True, 1'], 30)).map((a) => (a.args[0] as { value: boolean }).value);
    expect(new Set(bools)).toEqual(new Set([true, false]));
  });

  it('generates None only where the known inputs show it', () => {
    expect(gen(['1', '2', '7'], 40).some((t) => t.includes('None'))).toBe(false);
    // (None itself is a known input here, so it is never generated again; inside a pair it is.)
    expect(gen(['1, None', '7, 3'], 40).some((t) => t.endsWith(', None'))).toBe(true);
    expect(gen(['[1, None, 3]', '[7]'], 40).some((t) => t.includes('None'))).toBe(true);
  });

  it('keeps keyword arguments by name, and each call form of the known inputs', () => {
    const out = gen(["'abc', k=2", "'xy', k=None", "'q'"], 40);
    const forms = new Set(values(out).map((a) => `${a.args.length}|${a.kwargs.map(([k]) => k).join(',')}`));
    expect(forms).toEqual(new Set(['1|k', '1|']));
    for (const a of values(out)) for (const [, v] of a.kwargs) expect(['int', 'none']).toContain(v.kind);
  });

  it('gives distinct inputs, never a known or excluded one', () => {
    const known = ['1', '2', '3'];
    const exclude = ['4', '5', '0'];
    const out = generateInputs(inputSpec(known), { count: 20, seedKey: 'x', purpose: 'heldout', exclude });
    expect(new Set(out.map(inputKey)).size).toBe(out.length);
    for (const k of [...known, ...exclude]) expect(out).not.toContain(k);
    // A single bool has two values: generation stops short instead of repeating.
    expect(gen(['True'], 10)).toEqual(['False']);
  });

  it('makes later arguments relate to earlier ones sometimes (a substring, an index)', () => {
    const pairs = values(gen(["'hello world', 'lo'"], 60)).map(
      (a) => [(a.args[0] as { value: string }).value, (a.args[1] as { value: string }).value] as const,
    );
    expect(pairs.filter(([s, sub]) => sub.length > 0 && s.includes(sub)).length).toBeGreaterThanOrEqual(10);
    const idx = values(gen(['[5, 6, 7, 8], 2'], 60)).filter((a) => {
      const n = Number((a.args[1] as { value: bigint }).value);
      const xs = (a.args[0] as { items: PyValue[] }).items;
      return xs.length > 0 && n >= 0 && n < xs.length;
    });
    expect(idx.length).toBeGreaterThanOrEqual(15);
  });

  it('from a signature alone: annotations, defaults left out, usage hints and body literals', () => {
    const sig: SignatureInfo = {
      params: [
        { name: 'items', kind: 'positional', annotation: 'List[str]', default: null },
        { name: 'n', kind: 'positional', annotation: null, default: null },
        { name: 'sep', kind: 'positional', annotation: null, default: "', '" },
        { name: 'flag', kind: 'keyword', annotation: 'bool', default: null },
      ],
      hints: { n: ['int'] },
      literals: { ints: [3, 7], strs: ['abc'] },
    };
    const out = values(generateInputs(inputSpec([], sig), { count: 12, seedKey: 's', purpose: 'known' }));
    expect(out).toHaveLength(12);
    for (const a of out) {
      expect(a.args.map((v) => v.kind)).toEqual(['list', 'int']);
      expect((a.args[0] as { items: PyValue[] }).items.every((v) => v.kind === 'str')).toBe(true);
      expect(a.kwargs.map(([k, v]) => [k, v.kind])).toEqual([['flag', 'bool']]);
    }
  });

  it('every generated input is accepted by the sandbox argument parser, with the values the codec meant', () => {
    const knowns = [
      ["[1, 2], 3, 2.5, 'ab', {'x': 1}, {4, 5}, (1, 'a'), [[1], [2, 3]]"],
      ["'it\\'s', k=None", "'a\\nb', k=3"],
      ["b'xy', -0.0, {(1, 2): 'v'}"],
      ['set(), ()'],
    ];
    const texts = knowns.flatMap((k, i) => gen(k, 25, `py/${i}`));
    const parsed = pythonParse(texts);
    expect(parsed.filter((r) => !r.ok)).toEqual([]);
    // Round trip: Python reads the generated text as the same values the codec prints back.
    expect(pythonParse(texts.map((t) => literalArgs(parseArgs(t)!))).map((r) => r.out)).toEqual(parsed.map((r) => r.out));
  });
});

describe('behaviour fingerprints and in-context examples', () => {
  it('methods whose inputs have the same types get the same fingerprint inputs', () => {
    const a = fingerprintPlan(inputSpec(['[1, 2, 3], 4']))!;
    const b = fingerprintPlan(inputSpec(['[100, -7], 0', '[], 9']))!;
    expect(a.key).toBe('(list[int], int)');
    expect(b).toEqual(a);
    expect(a.inputs).toHaveLength(16);
    expect(fingerprintPlan(inputSpec(["'abc'"]))!.key).toBe('(str)');
    expect(fingerprintPlan(inputSpec(["'abc'"]))!.inputs).not.toEqual(a.inputs);
  });

  it('in-context examples: the probe inputs first, then generated ones up to k, never a held-out input', () => {
    const m = { id: 'x/1', probeInputs: ['[3, 1, 2]', '[]'], heldoutInputs: ['[5, 5]'], heldoutGenerated: ['[0]', '[1, 2]', '[9, -1, 4]'] };
    const ex = inContextExamples(m, 20);
    expect(ex).toHaveLength(20);
    expect(ex.slice(0, 2)).toEqual(m.probeInputs);
    for (const h of [...m.heldoutInputs, ...m.heldoutGenerated]) expect(ex.map(inputKey)).not.toContain(inputKey(h));
    expect(inContextExamples(m, 20)).toEqual(ex); // the same for every model and run
    expect(inContextExamples(m, 1)).toEqual(['[3, 1, 2]']);
  });
});
