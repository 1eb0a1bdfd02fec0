// The one typed input generator (issue 12, point 5): new argument lists for a method, derived from its known
// inputs (or, when it has none, from its signature, defaults and the literals in its body). Used for
// generated held-out inputs (code match), budget-matched in-context examples, behaviour fingerprints (the
// dataset build's near-duplicate check) and CodeAlpaca functions whose source gives no example call.
//
// Type-aware: each argument position gets a shape inferred from the known values (int range, float range,
// string alphabet and length, container element shapes and lengths, tuples of fixed arity, unions such as
// `int | None`). Values are drawn from that shape, with edge values mixed in: ints 0, 1, -1 and just outside
// the seen range; floats 0.0, ±1.0, 0.5; strings empty, one character, upper/lower case, digits, spaces;
// containers empty, one element, many elements, duplicates, sorted and reversed; booleans both ways; None
// where the known inputs show it. Keyword arguments keep their names and positions in the call.
// Deterministic: the same (method, purpose, seed) gives the same inputs on every machine. Pure, no I/O.
import { seededRandom } from '../common/seededRandom';
import { rangeProblem } from '../common/numberRange';
import { runSteps } from '../common/steps';
import { IN_CONTEXT_K_RANGE } from '../episode/bounds';
import { mutateInputs } from './mutation';
import { fnv1a } from '../common/hash';
import { parseArgs, parseValue } from '../python/literal';
import { literal, literalArgs } from '../python/print';
import { bytesOf, type PyArgs, type PyValue } from '../python/value';

/** Bumped when generation changes: part of the dataset's check key, so a rebuild reruns what it affects. */
export const GENERATOR_VERSION = 'typed-inputs-3';

export type Shape =
  | { k: 'int'; lo: number; hi: number; seen: number[] }
  | { k: 'float'; lo: number; hi: number; decimals: number; seen: number[] }
  | { k: 'str'; maxLen: number; chars: string; seen: string[] }
  | { k: 'bytes'; maxLen: number }
  | { k: 'bool' }
  | { k: 'none' }
  | { k: 'complex'; seen: string[] }
  | { k: 'list' | 'set'; elem: Shape | null; maxLen: number }
  /** items: a fixed-arity tuple (every known one had that length); else elem: a tuple of varying length. */
  | { k: 'tuple'; items: Shape[] | null; elem: Shape | null; maxLen: number }
  | { k: 'dict'; key: Shape | null; value: Shape | null; maxLen: number }
  | { k: 'union'; options: Shape[] };

/** One call form: how many positional arguments, which keywords (in the order written), their shapes. */
export interface Template {
  pos: Shape[];
  kws: [string, Shape][];
  /** How many known inputs had this form (the most common form is used most). */
  weight: number;
}

export interface InputSpec {
  templates: Template[];
  /** Known inputs that did not parse as literals: varied by the older literal mutation instead. */
  unparsed: string[];
  /** Every known input, normalised, never generated again. */
  known: string[];
}

/** A parameter as the static analysis (activities/dataset/analyze.py) reports it. */
export interface ParamInfo {
  name: string;
  kind: 'positional' | 'keyword' | 'varargs' | 'varkw';
  annotation: string | null;
  /** The default's literal text, when it has one. */
  default: string | null;
}

/** What the signature and body say about the inputs, for a method with no known call. */
export interface SignatureInfo {
  params: ParamInfo[];
  /** Usage tags per parameter (`str`, `list`, `dict`, `set`, `int`, `float`, `bool`, `seq`, `elem-int`, `elem-str`, `matrix`). */
  hints: Record<string, string[]>;
  /** Short literal constants in the body. */
  literals: { ints: number[]; strs: string[] };
}

const MAX_SEEN = 8;
const MAX_LIST = 12;
const MAX_STR = 40;
const MAX_INT = 1e15;
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = LOWER.toUpperCase();
const DIGITS = '0123456789';

// ---------------------------------------------------------------- shapes from values

const clampInt = (x: bigint): number => (x > BigInt(MAX_INT) ? MAX_INT : x < BigInt(-MAX_INT) ? -MAX_INT : Number(x));
const uniq = <T>(xs: T[]): T[] => [...new Set(xs)];
const addSeen = <T>(a: T[], b: T[]): T[] => uniq([...a, ...b]).slice(0, MAX_SEEN);

export function shapeOf(v: PyValue): Shape {
  switch (v.kind) {
    case 'int': {
      const n = clampInt(v.value);
      return { k: 'int', lo: n, hi: n, seen: [n] };
    }
    case 'float': {
      const d = Number.isFinite(v.value) ? Math.min(3, /\.(\d+)/.exec(String(v.value))?.[1]?.length ?? 1) : 1;
      const x = Number.isFinite(v.value) ? v.value : 0;
      return { k: 'float', lo: x, hi: x, decimals: d, seen: Number.isFinite(v.value) ? [v.value] : [] };
    }
    case 'str':
      return { k: 'str', maxLen: v.value.length, chars: uniq([...v.value]).join(''), seen: [v.value] };
    case 'bytes':
      return { k: 'bytes', maxLen: v.value.length };
    case 'bool':
      return { k: 'bool' };
    case 'none':
      return { k: 'none' };
    case 'complex':
      return { k: 'complex', seen: [literal(v)] };
    case 'list':
    case 'set':
      return { k: v.kind, elem: mergeAll(v.items.map(shapeOf)), maxLen: v.items.length };
    case 'frozenset':
      return { k: 'set', elem: mergeAll(v.items.map(shapeOf)), maxLen: v.items.length };
    case 'bytearray':
      return { k: 'bytes', maxLen: v.value.length };
    case 'other':
      return { k: 'none' }; // no literal (literal text never parses to one)
    case 'tuple':
      return {
        k: 'tuple',
        items: v.items.length > 0 && v.items.length <= 4 ? v.items.map(shapeOf) : null,
        elem: mergeAll(v.items.map(shapeOf)),
        maxLen: v.items.length,
      };
    case 'dict':
      return { k: 'dict', key: mergeAll(v.entries.map(([k]) => shapeOf(k))), value: mergeAll(v.entries.map(([, x]) => shapeOf(x))), maxLen: v.entries.length };
  }
}

function mergeAll(shapes: Shape[]): Shape | null {
  return shapes.reduce<Shape | null>((a, s) => mergeShapes(a, s), null);
}

/** The shape that covers both (same kinds merge their ranges; different kinds make a union). */
export function mergeShapes(a: Shape | null, b: Shape | null): Shape | null {
  if (!a) return b;
  if (!b) return a;
  if (a.k === 'union' || b.k === 'union') {
    const opts = [...(a.k === 'union' ? a.options : [a]), ...(b.k === 'union' ? b.options : [b])];
    const merged: Shape[] = [];
    for (const o of opts) {
      const i = merged.findIndex((m) => m.k === o.k);
      if (i >= 0) merged[i] = mergeShapes(merged[i]!, o)!;
      else merged.push(o);
    }
    return merged.length === 1 ? merged[0]! : { k: 'union', options: merged };
  }
  if (a.k !== b.k) return { k: 'union', options: [a, b] };
  switch (a.k) {
    case 'int': {
      const y = b as typeof a;
      return { k: 'int', lo: Math.min(a.lo, y.lo), hi: Math.max(a.hi, y.hi), seen: addSeen(a.seen, y.seen) };
    }
    case 'float': {
      const y = b as typeof a;
      return { k: 'float', lo: Math.min(a.lo, y.lo), hi: Math.max(a.hi, y.hi), decimals: Math.max(a.decimals, y.decimals), seen: addSeen(a.seen, y.seen) };
    }
    case 'str': {
      const y = b as typeof a;
      return { k: 'str', maxLen: Math.max(a.maxLen, y.maxLen), chars: uniq([...a.chars, ...y.chars]).join(''), seen: addSeen(a.seen, y.seen) };
    }
    case 'bytes':
      return { k: 'bytes', maxLen: Math.max(a.maxLen, (b as typeof a).maxLen) };
    case 'complex':
      return { k: 'complex', seen: addSeen(a.seen, (b as typeof a).seen) };
    case 'list':
    case 'set': {
      const y = b as typeof a;
      return { k: a.k, elem: mergeShapes(a.elem, y.elem), maxLen: Math.max(a.maxLen, y.maxLen) };
    }
    case 'tuple': {
      const y = b as typeof a;
      const items = a.items && y.items && a.items.length === y.items.length ? a.items.map((s, i) => mergeShapes(s, y.items![i]!)!) : null;
      return { k: 'tuple', items, elem: mergeShapes(a.elem, y.elem), maxLen: Math.max(a.maxLen, y.maxLen) };
    }
    case 'dict': {
      const y = b as typeof a;
      return { k: 'dict', key: mergeShapes(a.key, y.key), value: mergeShapes(a.value, y.value), maxLen: Math.max(a.maxLen, y.maxLen) };
    }
    default:
      return a;
  }
}

/** Whitespace-free text of an input, so `1,2` and `1, 2` are the same input. */
export function inputKey(text: string): string {
  const a = parseArgs(text);
  return a ? literalArgs(a).replace(/\s+/g, '') : text.replace(/\s+/g, '');
}

/** The shapes of a method's inputs, from its known argument texts (and its signature when it has none). */
export function inputSpec(known: readonly string[], signature?: SignatureInfo): InputSpec {
  const byForm = new Map<string, Template>();
  const unparsed: string[] = [];
  for (const text of known) {
    const a = parseArgs(text);
    if (!a) {
      if (text.trim() !== '') unparsed.push(text);
      continue;
    }
    const form = `${a.args.length}|${a.kwargs.map(([k]) => k).join(',')}`;
    const t = byForm.get(form);
    if (!t) byForm.set(form, { pos: a.args.map(shapeOf), kws: a.kwargs.map(([k, v]) => [k, shapeOf(v)]), weight: 1 });
    else {
      t.pos = t.pos.map((s, i) => mergeShapes(s, shapeOf(a.args[i]!))!);
      t.kws = t.kws.map(([k, s], i) => [k, mergeShapes(s, shapeOf(a.kwargs[i]![1]))!]);
      t.weight++;
    }
  }
  let templates = [...byForm.values()].sort((x, y) => y.weight - x.weight);
  if (templates.length === 0 && unparsed.length === 0 && signature) templates = [templateFromSignature(signature)];
  return { templates, unparsed, known: known.map(inputKey) };
}

// ---------------------------------------------------------------- shapes from a signature

const DEFAULT_STRS = ['hello world', 'abc', 'Python', 'racecar', 'A man a plan', '12345'];

function strShape(extra: string[]): Shape {
  const seen = addSeen(
    extra.filter((s) => s.length > 0 && s.length <= 20),
    DEFAULT_STRS,
  );
  return { k: 'str', maxLen: Math.max(8, ...seen.map((s) => s.length)), chars: uniq([...seen.join('')]).join(''), seen };
}

function intShape(lits: number[]): Shape {
  const small = lits.filter((n) => Math.abs(n) <= 100);
  return { k: 'int', lo: Math.min(0, ...small), hi: Math.max(10, ...small), seen: addSeen(small, [0, 1, 2, 5, 10]) };
}

const FLOAT: Shape = { k: 'float', lo: -10, hi: 100, decimals: 2, seen: [1.5, 2.25, 37.5] };

function shapeFromAnnotation(a: string, ctx: { int: Shape; str: Shape }): Shape | null {
  const t = a.replace(/\s+/g, '').replace(/^typing\./, '');
  const inner = /^[A-Za-z_.]+\[(.*)\]$/.exec(t)?.[1];
  const head = t
    .replace(/\[.*$/, '')
    .replace(/^typing\./, '')
    .toLowerCase();
  const args = inner ? splitTop(inner) : [];
  const sub = (i: number) => (args[i] ? shapeFromAnnotation(args[i]!, ctx) : null);
  switch (head) {
    case 'int':
      return ctx.int;
    case 'float':
      return FLOAT;
    case 'str':
      return ctx.str;
    case 'bool':
      return { k: 'bool' };
    case 'bytes':
      return { k: 'bytes', maxLen: 8 };
    case 'list':
    case 'sequence':
    case 'iterable':
      return { k: 'list', elem: sub(0) ?? ctx.int, maxLen: 6 };
    case 'set':
    case 'frozenset':
      return { k: 'set', elem: sub(0) ?? ctx.int, maxLen: 5 };
    case 'tuple':
      if (args.length === 2 && args[1] === '...') return { k: 'tuple', items: null, elem: sub(0), maxLen: 5 };
      return args.length > 0
        ? { k: 'tuple', items: args.map((_, i) => sub(i) ?? ctx.int), elem: null, maxLen: args.length }
        : { k: 'tuple', items: null, elem: ctx.int, maxLen: 4 };
    case 'dict':
    case 'mapping':
      return { k: 'dict', key: sub(0) ?? ctx.str, value: sub(1) ?? ctx.int, maxLen: 4 };
    case 'optional': {
      const s = sub(0);
      return s ? { k: 'union', options: [s, { k: 'none' }] } : null;
    }
    case 'union': {
      const opts = args.map((_, i) => sub(i)).filter((s): s is Shape => s !== null);
      return opts.length ? mergeAll(opts) : null;
    }
    default:
      return null;
  }
}

function splitTop(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const c of s) {
    if (c === '[') depth++;
    if (c === ']') depth--;
    if (c === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  if (cur) out.push(cur);
  return out;
}

function shapeFromHints(tags: string[], ctx: { int: Shape; str: Shape }): Shape | null {
  const has = (t: string) => tags.includes(t);
  const elem = has('elem-str') ? ctx.str : ctx.int;
  if (has('matrix')) return { k: 'list', elem: { k: 'list', elem: ctx.int, maxLen: 4 }, maxLen: 4 };
  if (has('dict')) return { k: 'dict', key: ctx.str, value: ctx.int, maxLen: 4 };
  if (has('set')) return { k: 'set', elem, maxLen: 5 };
  if (has('list')) return { k: 'list', elem, maxLen: 6 };
  if (has('str')) return ctx.str;
  if (has('seq'))
    return has('elem-int') || has('elem-str') ? { k: 'list', elem, maxLen: 6 } : { k: 'union', options: [ctx.str, { k: 'list', elem, maxLen: 6 }] };
  if (has('float')) return FLOAT;
  if (has('int')) return ctx.int;
  if (has('bool')) return { k: 'bool' };
  return null;
}

const NAME_RULES: [RegExp, (ctx: { int: Shape; str: Shape }) => Shape][] = [
  [/^(matrix|grid|board|mat|m1|m2|matrix\d)$/i, (c) => ({ k: 'list', elem: { k: 'list', elem: c.int, maxLen: 4 }, maxLen: 4 })],
  [/(words|strings|names|sentences|strs|string_list|str_list)$/i, (c) => ({ k: 'list', elem: c.str, maxLen: 5 })],
  [/(dict|dic|dictionary|mapping|map|d\d?|counts)$/i, (c) => ({ k: 'dict', key: c.str, value: c.int, maxLen: 4 })],
  [
    /^(list|lst|arr|array|nums|numbers|items|values|elements|seq|sequence|data|l|l\d|list\d|lst\d|arr\d|a_list|my_list|input_list|num_list|int_list|nums\d|array\d)$|_list$|_arr$/i,
    (c) => ({ k: 'list', elem: c.int, maxLen: 6 }),
  ],
  [
    /^(s|str|string|text|word|sentence|name|ch|char|letter|phrase|msg|message|email|url|password|s\d|str\d|string\d|txt|line|hex|binary|bin|sub|substring|pattern|prefix|suffix|first_name|last_name|input_string|input_str|my_string|word\d)$|_str$|_string$/i,
    (c) => c.str,
  ],
  [/^(is_|has_|flag)/i, () => ({ k: 'bool' })],
  [
    /(price|amount|rate|temp|celsius|fahrenheit|kelvin|weight|salary|score|avg|average|percent|percentage|cost|balance|interest|principal|radius)$/i,
    () => FLOAT,
  ],
  [
    /^(n|num|number|k|m|i|j|x|y|z|a|b|c|count|size|limit|start|end|low|high|lo|hi|index|idx|year|age|base|exp|exponent|power|length|width|height|side|digit|digits|num\d|n\d|x\d|y\d|a\d|b\d|max|min|target|value|val|total|steps|rows|cols|day|month|hours|minutes|seconds)$|_num$|_count$|_size$/i,
    (c) => c.int,
  ],
];

function shapeForParam(p: ParamInfo, sig: SignatureInfo, ctx: { int: Shape; str: Shape }): Shape {
  const fromAnn = p.annotation ? shapeFromAnnotation(p.annotation, ctx) : null;
  if (fromAnn) return fromAnn;
  if (p.default !== null) {
    const v = parseValue(p.default);
    if (v && v.kind !== 'none') return widen(shapeOf(v), ctx);
  }
  const fromHints = shapeFromHints(sig.hints[p.name] ?? [], ctx);
  if (fromHints) return fromHints;
  for (const [re, make] of NAME_RULES) if (re.test(p.name)) return make(ctx);
  return { k: 'union', options: [ctx.int, ctx.str, { k: 'list', elem: ctx.int, maxLen: 6 }] };
}

/** A single default value says little about the range: widen it to the method's usual ints and strings. */
function widen(s: Shape, ctx: { int: Shape; str: Shape }): Shape {
  if (s.k === 'int') return mergeShapes(s, ctx.int)!;
  if (s.k === 'str') return mergeShapes(s, ctx.str)!;
  if (s.k === 'list' || s.k === 'set') return { ...s, elem: s.elem ? widen(s.elem, ctx) : ctx.int, maxLen: Math.max(s.maxLen, 5) };
  return s;
}

function templateFromSignature(sig: SignatureInfo): Template {
  const ctx = { int: intShape(sig.literals.ints), str: strShape(sig.literals.strs) };
  const pos: Shape[] = [];
  const kws: [string, Shape][] = [];
  for (const p of sig.params) {
    if (p.default !== null || p.kind === 'varargs' || p.kind === 'varkw') continue; // defaults stay defaults
    if (p.kind === 'positional') pos.push(shapeForParam(p, sig, ctx));
    else kws.push([p.name, shapeForParam(p, sig, ctx)]);
  }
  return { pos, kws, weight: 1 };
}

// ---------------------------------------------------------------- values from shapes

type Rand = () => number;
const randInt = (r: Rand, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
const choice = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;

const int = (n: number): PyValue => ({ kind: 'int', value: BigInt(Math.trunc(n)) });
const float = (x: number, d: number): PyValue => ({ kind: 'float', value: Number(x.toFixed(d)) });
const str = (value: string): PyValue => ({ kind: 'str', value });
/** A complex value from its literal text (shapes keep complex values as text). */
const complexOf = (text: string): PyValue => parseValue(text) ?? { kind: 'complex', re: 0, im: 1 };

function alphabet(s: Extract<Shape, { k: 'str' }>): string {
  let a = s.chars;
  if (/[a-z]/.test(a)) a += 'aeioustrnx';
  if (/[A-Z]/.test(a)) a += 'AEIOUSTRNX';
  if (/[0-9]/.test(a)) a += '0123456789';
  return a || 'abcxyz ';
}

function caseVariants(s: string): string[] {
  const swap = [...s].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
  return [s.toUpperCase(), s.toLowerCase(), swap, s.charAt(0).toUpperCase() + s.slice(1).toLowerCase()];
}

function edgeValues(s: Shape, r: Rand): PyValue[] {
  switch (s.k) {
    case 'int':
      return uniq([0, 1, -1, 2, s.lo, s.hi, s.lo - 1, s.hi + 1].filter((n) => Math.abs(n) <= MAX_INT)).map(int);
    case 'float':
      return [0, 1, -1, 0.5, -2.5, s.lo, s.hi].map((x) => float(x, s.decimals));
    case 'str': {
      const base = s.seen[0] ?? 'abc';
      const a = alphabet(s);
      return [
        str(''),
        str(a[0] ?? 'a'),
        ...caseVariants(base).map(str),
        str('12345'),
        str('a b c'),
        str(` ${base} `),
        str(`${base} ${base}`),
        str([...base].reverse().join('')),
        str(`${choice(r, [...LOWER])}${choice(r, [...UPPER])}${choice(r, [...DIGITS])} ${choice(r, [...LOWER])}`),
      ];
    }
    case 'bytes':
      return [
        { kind: 'bytes', value: bytesOf('') },
        { kind: 'bytes', value: bytesOf('a') },
        { kind: 'bytes', value: bytesOf('Hello') },
      ];
    case 'bool':
      return [
        { kind: 'bool', value: true },
        { kind: 'bool', value: false },
      ];
    case 'none':
      return [{ kind: 'none' }];
    case 'complex':
      return s.seen.map(complexOf);
    case 'list':
    case 'set': {
      const e = () => value(s.elem ?? DEFAULT_INT, r, 'typical', 1);
      const many = Array.from({ length: Math.min(MAX_LIST, Math.max(s.maxLen + 2, 5)) }, e);
      const x = e();
      const sorted = sortValues(many);
      return [
        container(s.k, []),
        container(s.k, [x]),
        container(s.k, [x, x]),
        container(s.k, many),
        container(s.k, sorted),
        container(s.k, [...sorted].reverse()),
      ];
    }
    case 'tuple':
      if (s.items)
        return s.items.map((_, i) => ({
          kind: 'tuple' as const,
          items: s.items!.map((it, j) => (i === j ? choice(r, edgeValues(it, r)) : value(it, r, 'typical', 1))),
        }));
      return [{ kind: 'tuple', items: [] }, { kind: 'tuple', items: [value(s.elem ?? DEFAULT_INT, r, 'typical', 1)] }, value(s, r, 'typical', 0)];
    case 'dict': {
      const one = value({ ...s, maxLen: 1 }, r, 'typical', 0);
      return [
        { kind: 'dict', entries: [] },
        one.kind === 'dict' && one.entries.length > 1 ? { kind: 'dict', entries: one.entries.slice(0, 1) } : one,
        value({ ...s, maxLen: Math.max(s.maxLen + 2, 4) }, r, 'typical', 0),
      ];
    }
    case 'union':
      return s.options.flatMap((o) => edgeValues(o, r));
  }
}

const DEFAULT_INT: Shape = { k: 'int', lo: 0, hi: 10, seen: [] };

function container(k: 'list' | 'set', items: PyValue[]): PyValue {
  return k === 'set' ? { kind: 'set', items: dedupe(items) } : { kind: 'list', items };
}

function dedupe(items: PyValue[]): PyValue[] {
  const seen = new Set<string>();
  return items.filter((v) => {
    const k = literal(v);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function sortValues(items: PyValue[]): PyValue[] {
  const num = (v: PyValue) => (v.kind === 'int' ? Number(v.value) : v.kind === 'float' ? v.value : NaN);
  if (items.every((v) => !Number.isNaN(num(v)))) return [...items].sort((a, b) => num(a) - num(b));
  if (items.every((v) => v.kind === 'str')) return [...items].sort((a, b) => ((a as { value: string }).value < (b as { value: string }).value ? -1 : 1));
  return items;
}

function mutateString(s: string, a: string, r: Rand): string {
  const chars = [...s];
  const edits = 1 + Math.floor(r() * 2);
  for (let i = 0; i < edits; i++) {
    const op = r();
    if (op < 0.35 && chars.length > 0) chars[randInt(r, 0, chars.length - 1)] = choice(r, [...a]);
    else if (op < 0.6 && chars.length > 0) chars.splice(randInt(r, 0, chars.length - 1), 1);
    else if (op < 0.85) chars.splice(randInt(r, 0, chars.length), 0, choice(r, [...a]));
    else return choice(r, caseVariants(chars.join('')));
  }
  return chars.join('');
}

function value(s: Shape, r: Rand, mode: 'edge' | 'typical', depth: number): PyValue {
  if (mode === 'edge') return choice(r, edgeValues(s, r));
  switch (s.k) {
    case 'int': {
      const span = Math.max(s.hi - s.lo, 4);
      if (s.seen.length > 0 && r() < 0.4) return int(choice(r, s.seen) + randInt(r, -3, 3));
      const lo = Math.max(-MAX_INT, s.lo - Math.ceil(span / 2));
      const hi = Math.min(MAX_INT, s.hi + Math.ceil(span / 2));
      return int(lo + Math.floor(r() * (hi - lo + 1)));
    }
    case 'float': {
      const span = Math.max(s.hi - s.lo, 2);
      if (s.seen.length > 0 && r() < 0.3) return float(choice(r, s.seen) * (0.5 + r()), s.decimals);
      return float(s.lo - span / 2 + r() * span * 2, s.decimals);
    }
    case 'str': {
      const a = alphabet(s);
      if (s.seen.length > 0 && r() < 0.5) return str(mutateString(choice(r, s.seen), a, r).slice(0, MAX_STR));
      const len = randInt(r, 0, Math.min(MAX_STR, Math.max(s.maxLen, 4) + 2));
      return str(Array.from({ length: len }, () => choice(r, [...a])).join(''));
    }
    case 'bytes':
      return {
        kind: 'bytes',
        value: bytesOf(Array.from({ length: randInt(r, 0, Math.min(16, s.maxLen + 2)) }, () => choice(r, [...`${LOWER}${DIGITS} `])).join('')),
      };
    case 'bool':
      return { kind: 'bool', value: r() < 0.5 };
    case 'none':
      return { kind: 'none' };
    case 'complex':
      return complexOf(s.seen.length ? choice(r, s.seen) : '1j');
    case 'list':
    case 'set': {
      const len = randInt(r, 0, Math.min(depth > 0 ? 5 : MAX_LIST, Math.max(s.maxLen, 3) + 2));
      return container(
        s.k,
        Array.from({ length: len }, () => value(s.elem ?? DEFAULT_INT, r, r() < 0.15 ? 'edge' : 'typical', depth + 1)),
      );
    }
    case 'tuple': {
      if (s.items) return { kind: 'tuple', items: s.items.map((it) => value(it, r, r() < 0.15 ? 'edge' : 'typical', depth + 1)) };
      const len = randInt(r, 0, Math.min(MAX_LIST, Math.max(s.maxLen, 2) + 2));
      return { kind: 'tuple', items: Array.from({ length: len }, () => value(s.elem ?? DEFAULT_INT, r, 'typical', depth + 1)) };
    }
    case 'dict': {
      const len = randInt(r, 0, Math.min(8, Math.max(s.maxLen, 2) + 1));
      const keyShape = s.key && isHashable(s.key) ? s.key : { k: 'str' as const, maxLen: 5, chars: LOWER, seen: [] };
      const seen = new Set<string>();
      const entries: [PyValue, PyValue][] = [];
      for (let i = 0; i < len * 3 && entries.length < len; i++) {
        const k = value(keyShape, r, 'typical', depth + 1);
        const key = literal(k);
        if (seen.has(key)) continue;
        seen.add(key);
        entries.push([k, value(s.value ?? DEFAULT_INT, r, r() < 0.15 ? 'edge' : 'typical', depth + 1)]);
      }
      return { kind: 'dict', entries };
    }
    case 'union': {
      // None (when the known inputs show it) is one choice among the others, not a third of all values.
      const opts = s.options;
      const nonNone = opts.filter((o) => o.k !== 'none');
      const pickNone = opts.length > nonNone.length && (nonNone.length === 0 || r() < 0.15);
      return pickNone ? { kind: 'none' } : value(choice(r, nonNone), r, 'typical', depth);
    }
  }
}

function isHashable(s: Shape): boolean {
  if (s.k === 'list' || s.k === 'set' || s.k === 'dict') return false;
  if (s.k === 'tuple') return (s.items ?? (s.elem ? [s.elem] : [])).every(isHashable);
  if (s.k === 'union') return s.options.every(isHashable);
  return true;
}

/**
 * Makes one later argument depend on an earlier one, as real calls do: a string that occurs in an earlier
 * string (a character, a prefix, a suffix, a slice), an int that is a valid index of (or an element of) an
 * earlier list or string, a value that is an element of an earlier list. Independent random arguments
 * would almost never exercise `find(s, sub)` or `remove(xs, x)` beyond their "not found" branch.
 */
function relate(a: PyArgs, r: Rand): void {
  const vals = [...a.args, ...a.kwargs.map(([, v]) => v)];
  const set = (i: number, v: PyValue) => {
    if (i < a.args.length) a.args[i] = v;
    else a.kwargs[i - a.args.length]![1] = v;
  };
  const targets = vals.map((_, i) => i).filter((i) => i > 0);
  const j = choice(r, targets);
  const later = vals[j]!;
  const earlier = vals.slice(0, j).filter((v) => v.kind === 'str' || v.kind === 'list' || v.kind === 'tuple');
  if (earlier.length === 0) return;
  const src = choice(r, earlier);
  // A string inside an earlier list of strings counts as a source string too (`filter(strings, prefix)`).
  const items = src.kind === 'list' || src.kind === 'tuple' ? src.items : [];
  const inner = items.flatMap((x) => (x.kind === 'str' && x.value.length > 0 ? [x.value] : []));
  const text = src.kind === 'str' ? src.value : later.kind === 'str' && inner.length > 0 ? choice(r, inner) : null;
  if (later.kind === 'str' && text) {
    const i = randInt(r, 0, text.length - 1);
    const k = randInt(r, i + 1, Math.min(text.length, i + 4));
    set(j, str(choice(r, [text[i]!, text.slice(0, k - i), text.slice(text.length - (k - i)), text.slice(i, k)])));
  } else if (later.kind === 'int') {
    const ints = items.filter((x) => x.kind === 'int');
    const len = text !== null ? text.length : items.length;
    if (ints.length > 0 && r() < 0.5) set(j, choice(r, ints));
    else if (len > 0) set(j, int(randInt(r, 0, len - 1)));
  } else {
    const same = items.filter((x) => x.kind === later.kind);
    if (same.length > 0) set(j, choice(r, same));
  }
}

// ---------------------------------------------------------------- inputs

export type Purpose = 'heldout' | 'examples' | 'fingerprint' | 'known';

export interface GenerateOptions {
  count: number;
  /** Usually the method id (fingerprints use the shape key, so equal shapes get equal inputs). */
  seedKey: string;
  purpose: Purpose;
  seed?: string | number;
  /** Inputs never to produce (compared without whitespace), besides the spec's known ones. */
  exclude?: readonly string[];
}

/**
 * `count` new argument lists for the spec, distinct from each other, from the known inputs and from
 * `exclude`. Fewer when the shapes leave too little to vary (a single bool argument has two values).
 * A share of them put an edge value in one argument and typical values elsewhere.
 */
export function generateInputs(spec: InputSpec, o: GenerateOptions): string[] {
  return runSteps(generateInputSteps(spec, o));
}

/**
 * Attempts between two pauses of a stepped generation (a method whose inputs leave little to vary spends
 * its 25 attempts per input finding no new one). The longest step at k = 200 took 20-33 ms on 2 cores at
 * load 8 (2026-12-07; 52-70 ms with 250 attempts a step); a pause costs microseconds.
 */
export const ATTEMPTS_PER_STEP = 50;

/**
 * generateInputs as steps: the same inputs, with a pause (a `yield`) every ATTEMPTS_PER_STEP attempts, where
 * an activity lets its event loop run, heartbeats and checks for cancellation (domain/common/steps.ts).
 */
export function* generateInputSteps(spec: InputSpec, o: GenerateOptions): Generator<void, string[]> {
  if (o.count <= 0) return [];
  const r = seededRandom(fnv1a(`${GENERATOR_VERSION}:${o.purpose}:${o.seed ?? 1}:${o.seedKey}`));
  const seen = new Set([...spec.known, ...(o.exclude ?? []).map(inputKey)]);
  const out: string[] = [];
  const push = (text: string) => {
    const key = inputKey(text);
    if (seen.has(key)) return;
    seen.add(key);
    out.push(text);
  };
  const templates = spec.templates;
  const total = templates.reduce((n, t) => n + t.weight, 0);
  for (let attempt = 0; attempt < o.count * 25 && out.length < o.count; attempt++) {
    if (attempt > 0 && attempt % ATTEMPTS_PER_STEP === 0) yield;
    if (templates.length === 0 || (spec.unparsed.length > 0 && attempt % 4 === 3)) {
      if (spec.unparsed.length === 0) break;
      for (const m of mutateInputs(spec.unparsed, 1, `${o.purpose}:${o.seedKey}:${attempt}`, Number(fnv1a(String(o.seed ?? 1))))) push(m);
      continue;
    }
    // Templates in proportion to how often the known inputs used them.
    const pick = r() * total;
    let upTo = 0;
    const t =
      templates.find((x) => {
        upTo += x.weight;
        return pick < upTo;
      }) ?? templates[0]!;
    const n = t.pos.length + t.kws.length;
    const edgeAt = n > 0 && r() < 0.4 ? Math.floor(r() * n) : -1;
    const mode = (i: number) => (i === edgeAt ? 'edge' : 'typical') as 'edge' | 'typical';
    const args: PyArgs = {
      args: t.pos.map((s, i) => value(s, r, mode(i), 0)),
      kwargs: t.kws.map(([k, s], i) => [k, value(s, r, mode(t.pos.length + i), 0)]),
    };
    if (n > 1 && edgeAt < 0 && r() < 0.5) relate(args, r);
    push(literalArgs(args));
  }
  return out;
}

// ---------------------------------------------------------------- behaviour fingerprints

/** The shape with everything observed removed (ranges, strings seen): what two methods can share. */
function canonical(s: Shape): Shape {
  switch (s.k) {
    case 'int':
      return { k: 'int', lo: -3, hi: 12, seen: [] };
    case 'float':
      return { k: 'float', lo: -5, hi: 10, decimals: 2, seen: [] };
    case 'str':
      // Strings with the characters and patterns string functions look for (separators, digits, dates,
      // repeats, palindromes, case), so a function that only touches ':' or '#' is not the identity here.
      return {
        k: 'str',
        maxLen: 10,
        chars: 'abcdeABC1 ,.:-#',
        seen: [
          'hello',
          'World',
          'a b  c',
          'aba',
          'Abc1',
          '  pad ',
          'abab',
          'aaaa',
          'x,y,z',
          'Hello World',
          '2020-01-15',
          '192.168.0.1',
          'a:b:c',
          'x+y#z',
          'file.txt',
          'AbBA',
        ],
      };
    case 'bytes':
      return { k: 'bytes', maxLen: 6 };
    case 'complex':
      return { k: 'complex', seen: ['1j', '(1+2j)'] };
    case 'list':
    case 'set':
      return { k: s.k, elem: s.elem ? canonical(s.elem) : null, maxLen: 5 };
    case 'tuple':
      return { k: 'tuple', items: s.items ? s.items.map(canonical) : null, elem: s.elem ? canonical(s.elem) : null, maxLen: 4 };
    case 'dict':
      return { k: 'dict', key: s.key ? canonical(s.key) : null, value: s.value ? canonical(s.value) : null, maxLen: 4 };
    case 'union':
      return { k: 'union', options: s.options.map(canonical).sort((a, b) => (shapeKey(a) < shapeKey(b) ? -1 : 1)) };
    default:
      return s;
  }
}

/** A short type text of a shape: `int`, `list[str]`, `tuple[int,str]`, `dict[str,int]`, `int|None`. */
export function shapeKey(s: Shape | null): string {
  if (!s) return '?';
  switch (s.k) {
    case 'list':
    case 'set':
      return `${s.k}[${shapeKey(s.elem)}]`;
    case 'tuple':
      return s.items ? `tuple[${s.items.map(shapeKey).join(',')}]` : `tuple[${shapeKey(s.elem)},...]`;
    case 'dict':
      return `dict[${shapeKey(s.key)},${shapeKey(s.value)}]`;
    case 'union':
      return s.options.map(shapeKey).sort().join('|');
    case 'none':
      return 'None';
    default:
      return s.k;
  }
}

/**
 * The inputs a behaviour fingerprint runs: generated from the method's most common call form with every
 * observed detail removed, seeded by that form's type text, so two methods whose inputs have the same
 * types get exactly the same inputs and can be compared by their outputs. Null without a parsed form.
 */
export function fingerprintPlan(spec: InputSpec, count = 16): { key: string; inputs: string[] } | null {
  const t = spec.templates[0];
  if (!t) return null;
  const c: Template = { pos: t.pos.map(canonical), kws: t.kws.map(([k, s]) => [k, canonical(s)]), weight: 1 };
  const key = `(${[...c.pos.map(shapeKey), ...c.kws.map(([k, s]) => `${k}=${shapeKey(s)}`)].join(', ')})`;
  const inputs = generateInputs({ templates: [c], unparsed: [], known: [] }, { count, seedKey: key, purpose: 'fingerprint' });
  return { key, inputs };
}

// ---------------------------------------------------------------- in-context examples

export interface ExampleSource {
  id: string;
  probeInputs: readonly string[];
  heldoutInputs: readonly string[];
  heldoutGenerated?: readonly string[] | null;
}

/**
 * The budget-matched in-context examples of a method: its probe inputs first (the source's own examples),
 * then generated inputs until there are `k`, never one of its held-out inputs. The same for every model
 * and every run with the same k and seed.
 */
export function inContextExamples(m: ExampleSource, k: number, seed: string | number = 1): string[] {
  return runSteps(inContextExampleSteps(m, k, seed));
}

/**
 * inContextExamples as steps (generateInputSteps), for an activity. A k outside IN_CONTEXT_K_RANGE is
 * refused (a RangeError naming it) before any work: its cost grows with k, and 10^9 examples never end.
 */
export function* inContextExampleSteps(m: ExampleSource, k: number, seed: string | number = 1): Generator<void, string[]> {
  const refusal = rangeProblem('in-context k', k, IN_CONTEXT_K_RANGE);
  if (refusal) throw new RangeError(refusal);
  const probes = m.probeInputs.slice(0, k);
  if (probes.length >= k) return probes;
  const spec = inputSpec([...m.probeInputs, ...m.heldoutInputs]);
  const extra = yield* generateInputSteps(spec, {
    count: k - probes.length,
    seedKey: m.id,
    purpose: 'examples',
    seed,
    exclude: [...m.heldoutInputs, ...(m.heldoutGenerated ?? [])],
  });
  return [...probes, ...extra];
}
