// Values -> Python text: the one printer. Two styles, which differ only in floats and in which characters
// of a str are escaped:
//   - `repr`: what Python's repr() writes (1e-05, 1e+16, inf, '\xa0'), for display;
//   - `literal`: the argument text the dataset stores and the sandbox reads back with ast.literal_eval.
//     Floats as JavaScript writes them (0.00001, 10000000000000000.0, 1e+21; 1e309 for inf) and only
//     control characters, quotes, backslashes and lone surrogates escaped. Stored inputs were generated in
//     this form and the dataset's content hash is taken over their text, so it must not change.
// Pure code, no I/O.
import type { PyArgs, PyValue } from './value';

export type PrintStyle = 'repr' | 'literal';

/** Python's repr() of the value (the sandbox's own `repr` is authoritative when a call returned one). */
export function repr(v: PyValue): string {
  return printValue(v, 'repr');
}

/** Python literal text of a value (the form `ast.literal_eval` reads back to the same value). */
export function literal(v: PyValue): string {
  return printValue(v, 'literal');
}

/** Python argument-list text: positional values, then `name=value` keyword arguments (literal style). */
export function literalArgs(a: PyArgs): string {
  return [...a.args.map(literal), ...a.kwargs.map(([k, v]) => `${k}=${literal(v)}`)].join(', ');
}

export function printValue(v: PyValue, style: PrintStyle): string {
  const p = (x: PyValue) => printValue(x, style);
  switch (v.kind) {
    case 'none':
      return 'None';
    case 'bool':
      return v.value ? 'True' : 'False';
    case 'int':
      return v.value.toString();
    case 'float':
      return style === 'repr' ? floatRepr(v.value) : floatLiteral(v.value);
    case 'complex':
      return complexRepr(v.re, v.im);
    case 'str':
      return strText(v.value, style);
    case 'bytes':
      return bytesRepr(v.value);
    case 'bytearray':
      return `bytearray(${bytesRepr(v.value)})`;
    case 'list':
      return `[${v.items.map(p).join(', ')}]`;
    case 'tuple':
      return v.items.length === 1 ? `(${p(v.items[0] as PyValue)},)` : `(${v.items.map(p).join(', ')})`;
    case 'set':
      return v.items.length === 0 ? 'set()' : `{${v.items.map(p).join(', ')}}`;
    case 'frozenset':
      return v.items.length === 0 ? 'frozenset()' : `frozenset({${v.items.map(p).join(', ')}})`;
    case 'dict':
      return `{${v.entries.map(([k, x]) => `${p(k)}: ${p(x)}`).join(', ')}}`;
    case 'other':
      return v.repr;
  }
}

/**
 * Python's float repr: the shortest digits that read back to the same float (JavaScript finds the same
 * ones), in fixed notation when the decimal exponent is in [-4, 16), else as `d.ddde+XX`.
 */
export function floatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa, exp] = x.toExponential().split('e') as [string, string];
  const e = Number(exp);
  const sign = mantissa.startsWith('-') ? '-' : '';
  const digits = mantissa.replace(/^-/, '').replace('.', '');
  if (e < -4 || e >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  if (e < 0) return `${sign}0.${'0'.repeat(-e - 1)}${digits}`;
  const whole = digits.slice(0, e + 1).padEnd(e + 1, '0');
  const frac = digits.slice(e + 1);
  return `${sign}${whole}.${frac || '0'}`;
}

function floatLiteral(x: number): string {
  if (Number.isNaN(x)) return 'nan'; // no Python literal is NaN: never parsed, never generated
  if (!Number.isFinite(x)) return x > 0 ? '1e309' : '-1e309';
  if (Object.is(x, -0)) return '-0.0';
  const s = String(x);
  return /[.eE]/.test(s) ? s : `${s}.0`;
}

/** Python's complex repr: `2j`, `(1+2j)`, `(-0-3j)`, `(1.5-infj)`: parts as floats, without a trailing `.0`. */
function complexRepr(re: number, im: number): string {
  const part = (x: number) => floatRepr(x).replace(/\.0$/, '');
  const imag = `${part(im)}j`;
  if (re === 0 && !Object.is(re, -0)) return imag;
  return `(${part(re)}${imag.startsWith('-') ? '' : '+'}${imag})`;
}

// Characters Python's str.isprintable() says no to (other than the space): they are escaped in a repr.
const NOT_PRINTABLE = /^[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]$/u;

function strText(s: string, style: PrintStyle): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number;
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${hex(cp, 2)}`;
    else if (cp >= 0xd800 && cp <= 0xdfff)
      out += `\\u${hex(cp, 4)}`; // a lone surrogate (a pair is one `ch`)
    else if (style === 'repr' && ch !== ' ' && NOT_PRINTABLE.test(ch))
      out += cp < 0x100 ? `\\x${hex(cp, 2)}` : cp < 0x10000 ? `\\u${hex(cp, 4)}` : `\\U${hex(cp, 8)}`;
    else out += ch;
  }
  return quote + out + quote;
}

function bytesRepr(b: Uint8Array): string {
  let hasSingle = false;
  let hasDouble = false;
  for (const c of b) {
    if (c === 0x27) hasSingle = true;
    if (c === 0x22) hasDouble = true;
  }
  const quote = hasSingle && !hasDouble ? 0x22 : 0x27;
  let out = '';
  for (const c of b) {
    if (c === 0x5c) out += '\\\\';
    else if (c === quote) out += `\\${String.fromCharCode(c)}`;
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c < 0x20 || c >= 0x7f) out += `\\x${hex(c, 2)}`;
    else out += String.fromCharCode(c);
  }
  const q = String.fromCharCode(quote);
  return `b${q}${out}${q}`;
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}
