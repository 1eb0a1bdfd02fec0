// The sandbox's typed value encoding (the wire form sandbox/encoding.py writes, one JSON value per Python
// value) and its decoding into PyValue and back, plus the canonical string equal for equal values.
// None, bool, str and ints within ±2^53 travel as plain JSON; everything else as a one-key object naming
// its type. Equality with tolerances is the judge's (domain/judge/outcomeEquality.ts). Pure code, no I/O.
import { z } from 'zod';
import { canonicalJson } from '../common/hash';
import type { PyValue } from './value';

/** The typed value encoding (see sandbox/encoding.py for the table). Recursive, so typed by hand. */
export type EncodedValue =
  | null
  | boolean
  | number
  | string
  | EncodedValue[]
  | { int: string }
  | { float: number | 'nan' | 'inf' | '-inf' | '-0.0' }
  | { bytes: string }
  | { bytearray: string }
  | { complex: [EncodedValue, EncodedValue] }
  | { tuple: EncodedValue[] }
  | { set: EncodedValue[] }
  | { frozenset: EncodedValue[] }
  | { dict: [EncodedValue, EncodedValue][] }
  | { other: { type: string; repr: string } };

export const encodedValueSchema: z.ZodType<EncodedValue> = z.lazy(() =>
  z.union([
    z.null(),
    z.boolean(),
    z.number(),
    z.string(),
    z.array(encodedValueSchema),
    z.object({ int: z.string().regex(/^-?\d+$/) }).strict(),
    z.object({ float: z.union([z.number(), z.enum(['nan', 'inf', '-inf', '-0.0'])]) }).strict(),
    z.object({ bytes: z.string() }).strict(),
    z.object({ bytearray: z.string() }).strict(),
    z.object({ complex: z.tuple([encodedValueSchema, encodedValueSchema]) }).strict(),
    z.object({ tuple: z.array(encodedValueSchema) }).strict(),
    z.object({ set: z.array(encodedValueSchema) }).strict(),
    z.object({ frozenset: z.array(encodedValueSchema) }).strict(),
    z.object({ dict: z.array(z.tuple([encodedValueSchema, encodedValueSchema])) }).strict(),
    z.object({ other: z.object({ type: z.string(), repr: z.string() }) }).strict(),
  ]),
);

/** A float's number from its encoding (special values travel as strings: JSON has no nan, inf or -0). */
export function decodeFloat(x: number | string): number {
  if (typeof x === 'number') return x;
  switch (x) {
    case 'nan':
      return Number.NaN;
    case 'inf':
      return Number.POSITIVE_INFINITY;
    case '-inf':
      return Number.NEGATIVE_INFINITY;
    case '-0.0':
      return -0;
    default:
      throw new Error(`bad float encoding ${JSON.stringify(x)}`);
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function fromBase64(s: string): Uint8Array {
  return Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
}

function toBase64(b: Uint8Array): string {
  let s = '';
  for (const c of b) s += String.fromCharCode(c);
  return btoa(s);
}

/** EncodedValue -> PyValue. Throws on anything that is not a valid encoding. */
export function decodeValue(enc: EncodedValue): PyValue {
  if (enc === null) return { kind: 'none' };
  if (typeof enc === 'boolean') return { kind: 'bool', value: enc };
  if (typeof enc === 'number') {
    if (!Number.isInteger(enc)) throw new Error(`untagged non-integer number ${enc}`);
    return { kind: 'int', value: BigInt(enc) };
  }
  if (typeof enc === 'string') return { kind: 'str', value: enc };
  if (Array.isArray(enc)) return { kind: 'list', items: enc.map(decodeValue) };
  if (!isRecord(enc)) throw new Error('bad encoding');
  if ('int' in enc) return { kind: 'int', value: BigInt(enc.int) };
  if ('float' in enc) return { kind: 'float', value: decodeFloat(enc.float) };
  if ('bytes' in enc) return { kind: 'bytes', value: fromBase64(enc.bytes) };
  if ('bytearray' in enc) return { kind: 'bytearray', value: fromBase64(enc.bytearray) };
  if ('complex' in enc) {
    const [re, im] = enc.complex.map(decodeValue);
    if (re?.kind !== 'float' || im?.kind !== 'float') throw new Error('bad complex encoding');
    return { kind: 'complex', re: re.value, im: im.value };
  }
  if ('tuple' in enc) return { kind: 'tuple', items: enc.tuple.map(decodeValue) };
  if ('set' in enc) return { kind: 'set', items: enc.set.map(decodeValue) };
  if ('frozenset' in enc) return { kind: 'frozenset', items: enc.frozenset.map(decodeValue) };
  if ('dict' in enc) return { kind: 'dict', entries: enc.dict.map(([k, v]) => [decodeValue(k), decodeValue(v)]) };
  if ('other' in enc) return { kind: 'other', type: enc.other.type, repr: enc.other.repr };
  throw new Error(`unknown value tag ${Object.keys(enc).join(',')}`);
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function encodeFloat(x: number): EncodedValue {
  if (Number.isNaN(x)) return { float: 'nan' };
  if (x === Number.POSITIVE_INFINITY) return { float: 'inf' };
  if (x === Number.NEGATIVE_INFINITY) return { float: '-inf' };
  if (Object.is(x, -0)) return { float: '-0.0' };
  return { float: x };
}

/** PyValue -> EncodedValue (the inverse of decodeValue; sets come out in canonical order). */
export function encodeValue(v: PyValue): EncodedValue {
  switch (v.kind) {
    case 'none':
      return null;
    case 'bool':
      return v.value;
    case 'int':
      return v.value <= MAX_SAFE && v.value >= -MAX_SAFE ? Number(v.value) : { int: v.value.toString() };
    case 'float':
      return encodeFloat(v.value);
    case 'complex':
      return { complex: [encodeFloat(v.re), encodeFloat(v.im)] };
    case 'str':
      return v.value;
    case 'bytes':
      return { bytes: toBase64(v.value) };
    case 'bytearray':
      return { bytearray: toBase64(v.value) };
    case 'list':
      return v.items.map(encodeValue);
    case 'tuple':
      return { tuple: v.items.map(encodeValue) };
    case 'set':
    case 'frozenset': {
      const items = v.items.map(encodeValue).sort((a, b) => cmp(canonicalJson(a), canonicalJson(b)));
      return v.kind === 'set' ? { set: items } : { frozenset: items };
    }
    case 'dict':
      return { dict: v.entries.map(([k, x]) => [encodeValue(k), encodeValue(x)] as [EncodedValue, EncodedValue]) };
    case 'other':
      return { other: { type: v.type, repr: v.repr } };
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A string equal for equal Python values (type-aware: 1, 1.0, True and (1,) vs [1] all differ; sets and
 * dicts compare regardless of order; nan equals nan). Use it as a key or for exact comparison.
 */
export function canonical(v: PyValue): string {
  switch (v.kind) {
    case 'set':
    case 'frozenset':
      return `${v.kind}{${v.items.map(canonical).sort().join(',')}}`;
    case 'dict':
      return `dict{${v.entries
        .map(([k, x]) => `${canonical(k)}:${canonical(x)}`)
        .sort()
        .join(',')}}`;
    case 'list':
    case 'tuple':
      return `${v.kind}[${v.items.map(canonical).join(',')}]`;
    case 'float':
      return `float:${Number.isNaN(v.value) ? 'nan' : Object.is(v.value, -0) ? '-0.0' : String(v.value)}`;
    default:
      return canonicalJson(encodeValue(v));
  }
}
