// Are two call outcomes the same? Type-aware equality over the sandbox's typed value encoding
// (sandbox/encoding.py): None, bool, str and safe ints as plain JSON; everything else a one-key object
// naming its type ({"float": 1.5}, {"tuple": [...]}, {"dict": [[k, v], ...]}, {"other": {type, repr}}).
//
// Rules (docs/judging.md):
//   - bool is never int, int is never float unless `intEqualsFloat` (Python's 1 == 1.0 is not used: a
//     description that makes the result a float where the method returns an int got the method wrong);
//   - floats equal within max(relTol * max(|a|, |b|), absTol); nan equals nan; inf equals inf of the same
//     sign; -0.0 equals 0.0 (by tolerance); complex compares its two parts as floats;
//   - tuple vs list by `tupleEqualsList` (default: different); set equals frozenset and bytes equals
//     bytearray (Python says so, and no description can tell them apart);
//   - sets and dicts are order-free (matched element by element, so float tolerance applies inside them);
//     lists and tuples are ordered;
//   - opaque values ({"other"}) are equal when type and repr are;
//   - two raised exceptions are equal when their types are (messages only with `compareErrorMessages`);
//     a value never equals an exception.
// Pure code: no I/O, safe to import anywhere (workflows included).

import { decodeFloat, type EncodedValue as Encoded } from '../python/codec';
import type { Outcome } from '../sandbox/schemas';

export type { Encoded, Outcome };

export interface EqualityOptions {
  relTol: number;
  absTol: number;
  tupleEqualsList: boolean;
  intEqualsFloat: boolean;
  compareErrorMessages: boolean;
}

export const DEFAULT_EQUALITY: EqualityOptions = {
  relTol: 1e-6,
  absTol: 1e-9,
  tupleEqualsList: false,
  intEqualsFloat: false,
  compareErrorMessages: false,
};

type Tagged = { tag: string; body: unknown };

function tagged(v: Encoded): Tagged | undefined {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const keys = Object.keys(v);
  if (keys.length !== 1) return undefined;
  const tag = keys[0] as string;
  return { tag, body: (v as Record<string, unknown>)[tag] };
}

const FLOAT_SPECIALS = new Set(['nan', 'inf', '-inf', '-0.0']);

/** A float's number from its encoding; a stored row's unexpected text reads as Number() does (NaN), never throws. */
function floatOf(body: unknown): number {
  return typeof body === 'number' || (typeof body === 'string' && FLOAT_SPECIALS.has(body)) ? decodeFloat(body as number | string) : Number(body);
}

export function floatsEqual(a: number, b: number, o: Pick<EqualityOptions, 'relTol' | 'absTol'>): boolean {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  if (a === b) return true; // also inf == inf, 0.0 == -0.0
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  return Math.abs(a - b) <= Math.max(o.relTol * Math.max(Math.abs(a), Math.abs(b)), o.absTol);
}

type Kind =
  | { k: 'none' }
  | { k: 'bool'; v: boolean }
  | { k: 'str'; v: string }
  | { k: 'int'; v: bigint }
  | { k: 'float'; v: number }
  | { k: 'complex'; re: number; im: number }
  | { k: 'seq'; kind: 'list' | 'tuple'; items: Encoded[] }
  | { k: 'set'; items: Encoded[] }
  | { k: 'bytes'; v: string }
  | { k: 'dict'; entries: [Encoded, Encoded][] }
  | { k: 'other'; type: string; repr: string }
  | { k: 'unknown'; v: string };

function classify(v: Encoded): Kind {
  if (v === null || v === undefined) return { k: 'none' };
  if (typeof v === 'boolean') return { k: 'bool', v };
  if (typeof v === 'string') return { k: 'str', v };
  if (typeof v === 'number') {
    // Untagged numbers are ints in the encoding; a bare non-integer is tolerated as a float.
    return Number.isInteger(v) ? { k: 'int', v: BigInt(v) } : { k: 'float', v };
  }
  if (Array.isArray(v)) return { k: 'seq', kind: 'list', items: v };
  const t = tagged(v);
  if (t) {
    const { tag, body } = t;
    try {
      switch (tag) {
        case 'int':
          return { k: 'int', v: BigInt(String(body)) };
        case 'float':
          return { k: 'float', v: floatOf(body) };
        case 'complex': {
          const [re, im] = body as [{ float: unknown }, { float: unknown }];
          return { k: 'complex', re: floatOf(re.float), im: floatOf(im.float) };
        }
        case 'tuple':
          return { k: 'seq', kind: 'tuple', items: body as Encoded[] };
        case 'set':
        case 'frozenset':
          return { k: 'set', items: body as Encoded[] };
        case 'bytes':
        case 'bytearray':
          return { k: 'bytes', v: String(body) };
        case 'dict':
          return { k: 'dict', entries: body as [Encoded, Encoded][] };
        case 'other': {
          const o = body as { type?: unknown; repr?: unknown };
          return { k: 'other', type: String(o.type), repr: String(o.repr) };
        }
      }
    } catch {
      // fall through: an encoding we cannot read compares by its JSON text
    }
  }
  return { k: 'unknown', v: JSON.stringify(v) };
}

/** Type-aware equality of two encoded values. */
export function valuesEqual(a: Encoded, b: Encoded, options: Partial<EqualityOptions> = {}): boolean {
  const o = { ...DEFAULT_EQUALITY, ...options };
  return eq(a, b, o, 0);
}

const MAX_DEPTH = 200;

function eq(a: Encoded, b: Encoded, o: EqualityOptions, depth: number): boolean {
  if (depth > MAX_DEPTH) return JSON.stringify(a) === JSON.stringify(b);
  const x = classify(a);
  const y = classify(b);
  if (x.k !== y.k) {
    if (o.intEqualsFloat && ((x.k === 'int' && y.k === 'float') || (x.k === 'float' && y.k === 'int'))) {
      return floatsEqual(Number(x.v), Number(y.v), o);
    }
    return false;
  }
  switch (x.k) {
    case 'none':
      return true;
    case 'bool':
    case 'str':
    case 'bytes':
    case 'unknown':
      return x.v === (y as typeof x).v;
    case 'int':
      return x.v === (y as typeof x).v;
    case 'float':
      return floatsEqual(x.v, (y as typeof x).v, o);
    case 'complex': {
      const c = y as typeof x;
      return floatsEqual(x.re, c.re, o) && floatsEqual(x.im, c.im, o);
    }
    case 'other': {
      const c = y as typeof x;
      return x.type === c.type && x.repr === c.repr;
    }
    case 'seq': {
      const s = y as typeof x;
      if (x.kind !== s.kind && !o.tupleEqualsList) return false;
      if (x.items.length !== s.items.length) return false;
      return x.items.every((item, i) => eq(item, s.items[i] as Encoded, o, depth + 1));
    }
    case 'set':
      return matchUnordered(x.items, (y as typeof x).items, (p, q) => eq(p, q, o, depth + 1));
    case 'dict': {
      const d = y as typeof x;
      return matchUnordered(x.entries, d.entries, (p, q) => eq(p[0], q[0], o, depth + 1) && eq(p[1], q[1], o, depth + 1));
    }
  }
}

/** A one-to-one matching of two bags under `same` (greedy; exact for equality without tolerance). */
function matchUnordered<T>(xs: T[], ys: T[], same: (a: T, b: T) => boolean): boolean {
  if (xs.length !== ys.length) return false;
  const used = new Uint8Array(ys.length);
  outer: for (const x of xs) {
    for (let j = 0; j < ys.length; j++) {
      if (!used[j] && same(x, ys[j] as T)) {
        used[j] = 1;
        continue outer;
      }
    }
    return false;
  }
  return true;
}

/** Two call outcomes are equal when both returned equal values, or both raised exceptions of one type. */
export function outcomesEqual(a: Outcome, b: Outcome, options: Partial<EqualityOptions> = {}): boolean {
  const o = { ...DEFAULT_EQUALITY, ...options };
  if (a.ok && b.ok) return eq(a.value, b.value, o, 0);
  if (!a.ok && !b.ok) {
    if (a.error.type !== b.error.type) return false;
    return !o.compareErrorMessages || (a.error.message ?? '') === (b.error.message ?? '');
  }
  return false;
}
