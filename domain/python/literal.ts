// Python literal text -> values: the one tokenizer and the one parser of argument lists such as
// `[1, 2], 'a', k=None` (what the sandbox's argument parser, sandbox/args.py, accepts via
// `ast.literal_eval`). Numbers follow Python's own lexical rules: underscores only between digits
// (`1_000`, `1e1_0`, `0x_ff`), no leading zeros on decimal ints (`01` is an error, `00` and `01.5` are
// not), `1.`, `.5`, `1.e5` and imaginary `2j`. Strings take the prefixes r, u, b, br, rb (any case),
// every quote form, escapes, and implicit concatenation. Pure code, no I/O.
import { bytesOf, type PyArgs, type PyValue } from './value';

export type TokenKind = 'num' | 'str' | 'name' | 'op' | 'space' | 'other';
/** One token; the texts of `tokenize(s)` joined give `s` back. */
export interface Token {
  kind: TokenKind;
  text: string;
}

const DIGITS = String.raw`\d(?:_?\d)*`;
const EXPONENT = `[eE][+-]?${DIGITS}`;
const POINT_FLOAT = String.raw`(?:${DIGITS})?\.${DIGITS}|${DIGITS}\.`;
const FLOAT = `(?:${POINT_FLOAT})(?:${EXPONENT})?|${DIGITS}${EXPONENT}`;
const IMAGINARY = `(?:${FLOAT}|${DIGITS})[jJ]`;
const INTEGER = String.raw`0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+|[1-9](?:_?\d)*|0+(?:_?0)*`;
const NUMBER_RE = new RegExp(`^(?:${IMAGINARY}|${FLOAT}|${INTEGER})`);
const STRING_RE = /^([rRbBuU]{0,2})('''(?:[^\\]|\\[\s\S])*?'''|"""(?:[^\\]|\\[\s\S])*?"""|'(?:[^'\\\n]|\\[\s\S])*'|"(?:[^"\\\n]|\\[\s\S])*")/;
const STRING_PREFIX_RE = /^(?:[rRuUbB]?|[bB][rR]|[rR][bB])$/;
const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*/;
const SPACE_RE = /^\s+/;
const OPS = '()[]{},:=-+';

/** Splits text into tokens; nothing is lost (an unknown character becomes an `other` token). */
export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    const s = STRING_RE.exec(rest);
    const m =
      (s && STRING_PREFIX_RE.test(s[1] ?? '') && { kind: 'str' as const, text: s[0] }) ||
      matchAs('name', NAME_RE, rest) ||
      matchAs('num', NUMBER_RE, rest) ||
      matchAs('space', SPACE_RE, rest) ||
      ({ kind: OPS.includes(rest[0] as string) ? 'op' : 'other', text: rest[0] as string } as Token);
    out.push(m);
    i += m.text.length;
  }
  return out;
}

function matchAs(kind: TokenKind, re: RegExp, rest: string): Token | null {
  const m = re.exec(rest);
  return m ? { kind, text: m[0] } : null;
}

const SIMPLE_ESCAPES: Record<string, string> = { '\\': '\\', "'": "'", '"': '"', a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\n': '' };

/** The value of one string token (prefix, quotes, escapes); null for forms not handled (`\N{...}`) or invalid. */
function decodeString(tok: string): { bytes: boolean; text: string } | null {
  const m = /^([rRbBuU]*)('''|"""|'|")([\s\S]*)\2$/.exec(tok);
  if (!m) return null;
  const prefix = (m[1] ?? '').toLowerCase();
  const body = m[3] ?? '';
  const bytes = prefix.includes('b');
  if (bytes && /[\u0080-\uffff]/.test(body)) return null; // bytes can only contain ASCII literal characters
  if (prefix.includes('r')) return { bytes, text: body };
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const n = body[i + 1];
    if (n === undefined) return null;
    if (n in SIMPLE_ESCAPES) {
      out += SIMPLE_ESCAPES[n];
      i++;
    } else if (/[0-7]/.test(n)) {
      const oct = (/^[0-7]{1,3}/.exec(body.slice(i + 1)) as RegExpExecArray)[0];
      const code = Number.parseInt(oct, 8);
      if (bytes && code > 0xff) return null;
      out += String.fromCharCode(code);
      i += oct.length;
    } else if (n === 'x') {
      const hex = body.slice(i + 2, i + 4);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) return null;
      out += String.fromCharCode(Number.parseInt(hex, 16));
      i += 3;
    } else if (!bytes && (n === 'u' || n === 'U')) {
      const len = n === 'u' ? 4 : 8;
      const hex = body.slice(i + 2, i + 2 + len);
      if (!new RegExp(`^[0-9a-fA-F]{${len}}$`).test(hex)) return null;
      const cp = Number.parseInt(hex, 16);
      if (cp > 0x10ffff) return null;
      out += String.fromCodePoint(cp);
      i += 1 + len;
    } else if (n === 'N' && !bytes) {
      return null;
    } else {
      out += `\\${n}`; // unknown escapes stay as written, as in Python
      i++;
    }
  }
  return { bytes, text: out };
}

/** A number token's value (the token is valid by NUMBER_RE). */
function numberValue(text: string): PyValue {
  const clean = text.replace(/_/g, '');
  if (/[jJ]$/.test(clean)) return { kind: 'complex', re: 0, im: Number(clean.slice(0, -1)) };
  if (/^0[xXoObB]/.test(clean)) return { kind: 'int', value: BigInt(clean.toLowerCase()) };
  if (/^\d+$/.test(clean)) return { kind: 'int', value: BigInt(clean) };
  return { kind: 'float', value: Number(clean) };
}

function negate(v: PyValue): PyValue {
  if (v.kind === 'int') return { kind: 'int', value: -v.value };
  if (v.kind === 'float') return { kind: 'float', value: -v.value };
  if (v.kind === 'complex') return { kind: 'complex', re: -v.re, im: -v.im };
  return v;
}

class Parser {
  i = 0;
  constructor(private readonly toks: Token[]) {}
  peek(o = 0): Token | undefined {
    return this.toks[this.i + o];
  }
  isOp(s: string, o = 0): boolean {
    const t = this.peek(o);
    return t?.kind === 'op' && t.text === s;
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
    if (t.kind === 'op' && (t.text === '-' || t.text === '+')) {
      let neg = false;
      while (this.isOp('-') || this.isOp('+')) {
        if (this.isOp('-')) neg = !neg;
        this.i++;
      }
      const n = this.peek();
      if (n?.kind !== 'num') throw new Error('sign without a number');
      this.i++;
      const v = numberValue(n.text);
      return this.complexTail(neg ? negate(v) : v);
    }
    if (t.kind === 'num') {
      this.i++;
      return this.complexTail(numberValue(t.text));
    }
    if (t.kind === 'str') {
      let bytes: boolean | undefined;
      let text = '';
      while (this.peek()?.kind === 'str') {
        const d = decodeString((this.peek() as Token).text);
        if (!d || (bytes !== undefined && bytes !== d.bytes)) throw new Error('bad string');
        bytes = d.bytes;
        text += d.text;
        this.i++;
      }
      return bytes ? { kind: 'bytes', value: bytesOf(text) } : { kind: 'str', value: text };
    }
    if (t.kind === 'name') {
      this.i++;
      if (t.text === 'True' || t.text === 'False') return { kind: 'bool', value: t.text === 'True' };
      if (t.text === 'None') return { kind: 'none' };
      if (t.text === 'set' && this.isOp('(') && this.isOp(')', 1)) {
        this.i += 2;
        return { kind: 'set', items: [] };
      }
      throw new Error(`name ${t.text} is not a literal`);
    }
    if (this.eat('[')) return { kind: 'list', items: this.items(']') };
    if (this.eat('(')) {
      if (this.eat(')')) return { kind: 'tuple', items: [] };
      const first = this.value();
      if (this.eat(')')) return first; // a parenthesised value
      this.expect(',');
      return { kind: 'tuple', items: [first, ...this.items(')')] };
    }
    if (this.eat('{')) {
      if (this.eat('}')) return { kind: 'dict', entries: [] };
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
        return { kind: 'dict', entries };
      }
      if (this.eat('}')) return { kind: 'set', items: [k] };
      this.expect(',');
      return { kind: 'set', items: [k, ...this.items('}')] };
    }
    throw new Error(`unexpected ${t.text}`);
  }

  /** `1+2j` / `-1-2j`: a real number followed by a signed imaginary one is one complex literal. */
  complexTail(v: PyValue): PyValue {
    const sign = this.peek();
    const im = this.peek(1);
    if (v.kind !== 'complex' && sign?.kind === 'op' && (sign.text === '+' || sign.text === '-') && im?.kind === 'num' && /[jJ]$/.test(im.text)) {
      this.i += 2;
      const re = v.kind === 'int' ? Number(v.value) : v.kind === 'float' ? v.value : Number.NaN;
      const imag = numberValue(im.text) as Extract<PyValue, { kind: 'complex' }>;
      return { kind: 'complex', re, im: sign.text === '-' ? -imag.im : imag.im };
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
  const toks = tokenize(text).filter((t) => t.kind !== 'space');
  if (toks.some((t) => t.kind === 'other')) return null;
  const p = new Parser(toks);
  const out: PyArgs = { args: [], kwargs: [] };
  try {
    while (p.peek()) {
      const t = p.peek() as Token;
      if (t.kind === 'name' && p.isOp('=', 1)) {
        p.i += 2;
        out.kwargs.push([t.text, p.value()]);
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
  return a && a.args.length === 1 && a.kwargs.length === 0 ? (a.args[0] as PyValue) : null;
}
