// Decoding the sandbox's typed value encoding (sandbox/encoding.py) into a TypeScript value model, plus
// the forms other parts need: a Python-like display string, a canonical string for equality and
// hashing (sets and dicts order-independent). Equality of values is the judge's (domain/judge/outcomeEquality.ts).
import type { CallResult, EncodedValue } from './schemas';

export type PyValue =
  | { kind: 'none' }
  | { kind: 'bool'; value: boolean }
  | { kind: 'int'; value: bigint }
  | { kind: 'float'; value: number }
  | { kind: 'complex'; re: number; im: number }
  | { kind: 'str'; value: string }
  | { kind: 'bytes' | 'bytearray'; value: Uint8Array }
  | { kind: 'list' | 'tuple' | 'set' | 'frozenset'; items: PyValue[] }
  | { kind: 'dict'; entries: [PyValue, PyValue][] }
  | { kind: 'other'; type: string; repr: string };

function decodeFloat(x: number | string): number {
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
  if ('bytes' in enc) return { kind: 'bytes', value: Uint8Array.from(Buffer.from(enc.bytes, 'base64')) };
  if ('bytearray' in enc) return { kind: 'bytearray', value: Uint8Array.from(Buffer.from(enc.bytearray, 'base64')) };
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
      return { bytes: Buffer.from(v.value).toString('base64') };
    case 'bytearray':
      return { bytearray: Buffer.from(v.value).toString('base64') };
    case 'list':
      return v.items.map(encodeValue);
    case 'tuple':
      return { tuple: v.items.map(encodeValue) };
    case 'set':
    case 'frozenset': {
      const items = v.items.map(encodeValue).sort((a, b) => cmp(canonicalEncoded(a), canonicalEncoded(b)));
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

function sortedKeysJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(sortedKeysJson).join(',')}]`;
  if (isRecord(v)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${sortedKeysJson(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

function canonicalEncoded(e: EncodedValue): string {
  return sortedKeysJson(e);
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
      return sortedKeysJson(encodeValue(v));
  }
}

function pyStr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return quote + out + quote;
}

function pyFloat(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (Object.is(x, -0)) return '-0.0';
  if (Number.isInteger(x) && Math.abs(x) < 1e16) return `${x}.0`;
  const s = String(x);
  return s.replace(/e\+?(-?)(\d)$/, 'e$10$2'); // 1e-7 -> 1e-07, as Python writes it
}

function pyBytes(b: Uint8Array, prefix: string): string {
  let out = '';
  for (const c of b) {
    if (c === 0x5c) out += '\\\\';
    else if (c === 0x27) out += "\\'";
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c < 0x20 || c >= 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += String.fromCharCode(c);
  }
  return `${prefix}'${out}'`;
}

/** A Python-like repr, for display (the executor's own `repr` is authoritative when present). */
export function pretty(v: PyValue): string {
  switch (v.kind) {
    case 'none':
      return 'None';
    case 'bool':
      return v.value ? 'True' : 'False';
    case 'int':
      return v.value.toString();
    case 'float':
      return pyFloat(v.value);
    case 'complex':
      return `(${pyFloat(v.re)}+${pyFloat(v.im)}j)`.replace('+-', '-');
    case 'str':
      return pyStr(v.value);
    case 'bytes':
      return pyBytes(v.value, 'b');
    case 'bytearray':
      return `bytearray(${pyBytes(v.value, 'b')})`;
    case 'list':
      return `[${v.items.map(pretty).join(', ')}]`;
    case 'tuple':
      return v.items.length === 1 ? `(${pretty(v.items[0] as PyValue)},)` : `(${v.items.map(pretty).join(', ')})`;
    case 'set':
      return v.items.length === 0 ? 'set()' : `{${v.items.map(pretty).join(', ')}}`;
    case 'frozenset':
      return v.items.length === 0 ? 'frozenset()' : `frozenset({${v.items.map(pretty).join(', ')}})`;
    case 'dict':
      return `{${v.entries.map(([k, x]) => `${pretty(k)}: ${pretty(x)}`).join(', ')}}`;
    case 'other':
      return v.repr;
  }
}

/** A call's outcome as one comparable string: the value's canonical form, or the error's type. */
export function outcomeKey(r: CallResult, opts: { withMessage?: boolean; withStdout?: boolean } = {}): string {
  const out = opts.withStdout ? `|stdout:${r.stdout}` : '';
  if (r.ok) return `ok:${canonical(decodeValue(r.value))}${out}`;
  return `err:${r.error.type}${opts.withMessage ? `:${r.error.message}` : ''}${out}`;
}
