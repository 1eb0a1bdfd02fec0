// Python literal argument lists as values: parse `[1, 2], 'a', k=None` into typed values and print values
// back as Python literal text that `ast.literal_eval` accepts (the sandbox's argument parser, sandbox/args.py).
// Covers what ast.unparse writes for literals: ints (any size), floats, complex numbers (kept as text),
// str and bytes with escapes, True/False/None, lists, tuples, dicts, sets and set(). Pure code, no I/O.

export type PyValue =
  | { t: 'int'; v: bigint }
  | { t: 'float'; v: number }
  | { t: 'complex'; text: string }
  | { t: 'str'; v: string }
  /** Bytes as a string of char codes 0-255. */
  | { t: 'bytes'; v: string }
  | { t: 'bool'; v: boolean }
  | { t: 'none' }
  | { t: 'list' | 'tuple' | 'set'; items: PyValue[] }
  | { t: 'dict'; entries: [PyValue, PyValue][] };

/** A call's arguments: positional values, then keyword arguments in their written order. */
export interface PyArgs {
  args: PyValue[];
  kwargs: [string, PyValue][];
}

type Tok = { k: 'num' | 'str' | 'name' | 'op'; s: string };

const STR_RE = /^([rRbBuU]{0,2})('''[\s\S]*?'''|"""[\s\S]*?"""|'(?:[^'\\\n]|\\[\s\S])*'|"(?:[^"\\\n]|\\[\s\S])*")/;
const NUM_RE = /^(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?[jJ]?)/;
const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*/;

function tokenize(text: string): Tok[] | null {
  const out: Tok[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const rest = text.slice(i);
    const s = STR_RE.exec(rest);
    if (s && !/[uU].*[bBrR]|[bBrR].*[uU]/.test(s[1] ?? '')) {
      out.push({ k: 'str', s: s[0] });
      i += s[0].length;
      continue;
    }
    const name = NAME_RE.exec(rest);
    if (name) {
      out.push({ k: 'name', s: name[0] });
      i += name[0].length;
      continue;
    }
    const num = NUM_RE.exec(rest);
    if (num && num[0] !== '.') {
      out.push({ k: 'num', s: num[0] });
      i += num[0].length;
      continue;
    }
    if ('()[]{},:=-+'.includes(c)) {
      out.push({ k: 'op', s: c });
      i++;
      continue;
    }
    return null;
  }
  return out;
}

const SIMPLE_ESC: Record<string, string> = { '\\': '\\', "'": "'", '"': '"', a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\n': '' };

/** The value of one string token (prefix, quotes, escapes), or null for forms not handled (\N{...}). */
function decodeString(tok: string): { bytes: boolean; v: string } | null {
  const m = /^([rRbBuU]*)('''|"""|'|")([\s\S]*)\2$/.exec(tok);
  if (!m) return null;
  const prefix = (m[1] ?? '').toLowerCase();
  const body = m[3] ?? '';
  const bytes = prefix.includes('b');
  if (prefix.includes('r')) return { bytes, v: body };
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const n = body[i + 1];
    if (n === undefined) return null;
    if (n in SIMPLE_ESC) {
      out += SIMPLE_ESC[n];
      i++;
    } else if (/[0-7]/.test(n)) {
      const oct = /^[0-7]{1,3}/.exec(body.slice(i + 1))![0];
      out += String.fromCharCode(parseInt(oct, 8));
      i += oct.length;
    } else if (n === 'x') {
      const hex = body.slice(i + 2, i + 4);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) return null;
      out += String.fromCharCode(parseInt(hex, 16));
      i += 3;
    } else if (!bytes && (n === 'u' || n === 'U')) {
      const len = n === 'u' ? 4 : 8;
      const hex = body.slice(i + 2, i + 2 + len);
      if (!new RegExp(`^[0-9a-fA-F]{${len}}$`).test(hex)) return null;
      const cp = parseInt(hex, 16);
      if (cp > 0x10ffff) return null;
      out += String.fromCodePoint(cp);
      i += 1 + len;
    } else if (n === 'N') {
      return null;
    } else {
      out += `\\${n}`; // unknown escapes stay as written, as in Python
      i++;
    }
  }
  return { bytes, v: out };
}

function numberValue(text: string, negative: boolean): PyValue | null {
  const clean = text.replace(/_/g, '');
  if (/[jJ]$/.test(clean)) return { t: 'complex', text: `${negative ? '-' : ''}${text}` };
  let v: PyValue;
  if (/^0[xXoObB]/.test(clean)) v = { t: 'int', v: BigInt(clean.toLowerCase()) };
  else if (/^\d+$/.test(clean)) v = { t: 'int', v: BigInt(clean) };
  else {
    const f = Number(clean);
    if (Number.isNaN(f)) return null;
    v = { t: 'float', v: f };
  }
  if (!negative) return v;
  return v.t === 'int' ? { t: 'int', v: -v.v } : { t: 'float', v: -(v as { v: number }).v };
}

class Parser {
  i = 0;
  constructor(private readonly toks: Tok[]) {}
  peek(o = 0): Tok | undefined {
    return this.toks[this.i + o];
  }
  isOp(s: string, o = 0): boolean {
    const t = this.peek(o);
    return t?.k === 'op' && t.s === s;
  }
  eat(s: string): boolean {
    if (!this.isOp(s)) return false;
    this.i++;
    return true;
  }
  expect(s: string): void {
    if (!this.eat(s)) throw new Error(`expected ${s}`);
  }

  value(): PyValue {
    const t = this.peek();
    if (!t) throw new Error('unexpected end');
    if (t.k === 'op' && (t.s === '-' || t.s === '+')) {
      this.i++;
      let neg = t.s === '-';
      while (this.isOp('-') || this.isOp('+')) {
        if (this.peek()!.s === '-') neg = !neg;
        this.i++;
      }
      const n = this.peek();
      if (n?.k !== 'num') throw new Error('sign without a number');
      this.i++;
      return this.complexTail(numberValue(n.s, neg));
    }
    if (t.k === 'num') {
      this.i++;
      return this.complexTail(numberValue(t.s, false));
    }
    if (t.k === 'str') {
      let bytes: boolean | undefined;
      let v = '';
      while (this.peek()?.k === 'str') {
        const d = decodeString(this.peek()!.s);
        if (!d || (bytes !== undefined && bytes !== d.bytes)) throw new Error('bad string');
        bytes = d.bytes;
        v += d.v;
        this.i++;
      }
      return bytes ? { t: 'bytes', v } : { t: 'str', v };
    }
    if (t.k === 'name') {
      this.i++;
      if (t.s === 'True' || t.s === 'False') return { t: 'bool', v: t.s === 'True' };
      if (t.s === 'None') return { t: 'none' };
      if (t.s === 'set' && this.isOp('(') && this.isOp(')', 1)) {
        this.i += 2;
        return { t: 'set', items: [] };
      }
      throw new Error(`name ${t.s} is not a literal`);
    }
    if (this.eat('[')) return { t: 'list', items: this.items(']') };
    if (this.eat('(')) {
      if (this.eat(')')) return { t: 'tuple', items: [] };
      const first = this.value();
      if (this.eat(')')) return first; // parenthesised value
      this.expect(',');
      return { t: 'tuple', items: [first, ...this.items(')')] };
    }
    if (this.eat('{')) {
      if (this.eat('}')) return { t: 'dict', entries: [] };
      const k = this.value();
      if (this.eat(':')) {
        const entries: [PyValue, PyValue][] = [[k, this.value()]];
        while (this.eat(',')) {
          if (this.isOp('}')) break;
          const kk = this.value();
          this.expect(':');
          entries.push([kk, this.value()]);
        }
        this.expect('}');
        return { t: 'dict', entries };
      }
      if (this.eat('}')) return { t: 'set', items: [k] };
      this.expect(',');
      return { t: 'set', items: [k, ...this.items('}')] };
    }
    throw new Error(`unexpected ${t.s}`);
  }

  /** `1+2j` / `-1-2j`: a real number followed by an imaginary one is one complex literal. */
  complexTail(v: PyValue | null): PyValue {
    if (!v) throw new Error('bad number');
    const sign = this.peek();
    const im = this.peek(1);
    if (v.t !== 'complex' && sign?.k === 'op' && (sign.s === '+' || sign.s === '-') && im?.k === 'num' && /[jJ]$/.test(im.s)) {
      this.i += 2;
      return { t: 'complex', text: `(${formatValue(v)}${sign.s}${im.s})` };
    }
    return v;
  }

  items(close: string): PyValue[] {
    const out: PyValue[] = [];
    while (!this.eat(close)) {
      out.push(this.value());
      if (!this.eat(',')) {
        this.expect(close);
        break;
      }
    }
    return out;
  }
}

/** Parses an argument list (`1, [2], k='x'`); null when it holds anything but literals. */
export function parseArgs(text: string): PyArgs | null {
  const toks = tokenize(text);
  if (!toks) return null;
  const p = new Parser(toks);
  const out: PyArgs = { args: [], kwargs: [] };
  try {
    while (p.peek()) {
      const t = p.peek()!;
      if (t.k === 'name' && p.isOp('=', 1)) {
        p.i += 2;
        out.kwargs.push([t.s, p.value()]);
      } else {
        if (out.kwargs.length > 0) return null; // positional after keyword
        out.args.push(p.value());
      }
      if (!p.eat(',')) break;
    }
    return p.peek() ? null : out;
  } catch {
    return null;
  }
}

/** One literal value's text (`parseArgs` of a single value). */
export function parseValue(text: string): PyValue | null {
  const a = parseArgs(text);
  return a && a.args.length === 1 && a.kwargs.length === 0 ? a.args[0]! : null;
}

function quoteString(v: string, bytes: boolean): string {
  const q = v.includes("'") && !v.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of v) {
    const cp = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === q) out += `\\${q}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (cp < 0x20 || cp === 0x7f || (bytes && cp > 0x7e)) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (!bytes && cp >= 0xd800 && cp <= 0xdfff) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${bytes ? 'b' : ''}${q}${out}${q}`;
}

function formatFloat(v: number): string {
  if (Number.isNaN(v)) return 'nan'; // no Python literal is NaN: never parsed, never generated
  if (!Number.isFinite(v)) return v > 0 ? '1e309' : '-1e309';
  if (Object.is(v, -0)) return '-0.0';
  const s = String(v);
  return /[.eE]/.test(s) ? s : `${s}.0`;
}

/** Python literal text of a value (the form `ast.literal_eval` reads back to the same value). */
export function formatValue(v: PyValue): string {
  switch (v.t) {
    case 'int':
      return v.v.toString();
    case 'float':
      return formatFloat(v.v);
    case 'complex':
      return v.text;
    case 'str':
      return quoteString(v.v, false);
    case 'bytes':
      return quoteString(v.v, true);
    case 'bool':
      return v.v ? 'True' : 'False';
    case 'none':
      return 'None';
    case 'list':
      return `[${v.items.map(formatValue).join(', ')}]`;
    case 'tuple':
      return v.items.length === 1 ? `(${formatValue(v.items[0]!)},)` : `(${v.items.map(formatValue).join(', ')})`;
    case 'set':
      return v.items.length === 0 ? 'set()' : `{${v.items.map(formatValue).join(', ')}}`;
    case 'dict':
      return `{${v.entries.map(([k, x]) => `${formatValue(k)}: ${formatValue(x)}`).join(', ')}}`;
  }
}

/** Python argument-list text: positional values, then `name=value` keyword arguments. */
export function formatArgs(a: PyArgs): string {
  return [...a.args.map(formatValue), ...a.kwargs.map(([k, v]) => `${k}=${formatValue(v)}`)].join(', ');
}
