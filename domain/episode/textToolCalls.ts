// Tool calls that real models write in their message text instead of (or besides) native `tool_calls`:
// JSON objects (bare, in ``` fences, in <tool_call> tags, several per message), whose `name` is the tool
// (`call_method`, `submit_description`) or the method's own name, and whose `arguments` are the
// harness's string form or an object of keyword/positional arguments; and the plain-text protocol
// (`CALL f(...)` lines, `DESCRIPTION: ...`). Everything becomes the harness's own form: a call with the
// Python-literal argument string the sandbox takes, or a description. Pure code, no I/O, never throws.
//
// JSON is read with a tolerant reader that keeps key order and number spellings (JSON.parse would
// reorder integer-like keys and turn 1.0 into 1) and accepts what small models write: single quotes,
// Python's True/False/None, trailing commas.
import { literal } from '../python/print';

export type TextToolCall =
  | { name: 'call_method'; arguments: string; raw: string }
  | { name: 'submit_description'; description: string; raw: string }
  /** A JSON tool call naming neither a tool nor the method: shown back to the agent as an unknown tool. */
  | { name: string; arguments: string; raw: string; unknown: true };

export interface TextParse {
  calls: TextToolCall[];
  /** The text tried to make a tool call (JSON with a name, <tool_call>, CALL, ...) that could not be read. */
  unparsable: boolean;
}

export interface TextParseOptions {
  /** The method's name: `{"name": "<entryPoint>", ...}` and `CALL <entryPoint>(...)` are calls of it. */
  entryPoint: string;
  /** Its parameter names in order (from the signature), to tell keyword from positional objects. */
  params?: string[];
}

// ---- a tolerant JSON reader -------------------------------------------------------------------------

export type JsonNode =
  | { t: 'str'; v: string }
  | { t: 'num'; raw: string }
  | { t: 'bool'; v: boolean }
  | { t: 'null' }
  | { t: 'arr'; items: JsonNode[] }
  | { t: 'obj'; entries: [string, JsonNode][] };

class Reader {
  i = 0;
  constructor(readonly s: string) {}
  ws() {
    while (this.i < this.s.length && /\s/.test(this.s[this.i]!)) this.i++;
  }
  value(depth = 0): JsonNode | undefined {
    if (depth > 64) return undefined;
    this.ws();
    const c = this.s[this.i];
    if (c === '{') return this.object(depth);
    if (c === '[') return this.array(depth);
    if (c === '"' || c === "'") {
      const v = this.string();
      return v === undefined ? undefined : { t: 'str', v };
    }
    const num = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(this.s.slice(this.i, this.i + 64));
    if (num) {
      this.i += num[0].length;
      return { t: 'num', raw: num[0] };
    }
    for (const [word, node] of [
      ['true', { t: 'bool', v: true }],
      ['false', { t: 'bool', v: false }],
      ['True', { t: 'bool', v: true }],
      ['False', { t: 'bool', v: false }],
      ['null', { t: 'null' }],
      ['None', { t: 'null' }],
    ] as const) {
      if (this.s.startsWith(word, this.i) && !/[A-Za-z0-9_]/.test(this.s[this.i + word.length] ?? '')) {
        this.i += word.length;
        return node;
      }
    }
    return undefined;
  }
  string(): string | undefined {
    const q = this.s[this.i];
    this.i++;
    let out = '';
    while (this.i < this.s.length) {
      const c = this.s[this.i]!;
      if (c === q) {
        this.i++;
        return out;
      }
      if (c === '\\') {
        const e = this.s[this.i + 1];
        this.i += 2;
        if (e === undefined) return undefined;
        if (e === 'u') {
          const hex = this.s.slice(this.i, this.i + 4);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) return undefined;
          out += String.fromCharCode(Number.parseInt(hex, 16));
          this.i += 4;
        } else out += ({ n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '0': '\0' } as Record<string, string>)[e] ?? e;
        continue;
      }
      out += c;
      this.i++;
    }
    return undefined;
  }
  array(depth: number): JsonNode | undefined {
    this.i++;
    const items: JsonNode[] = [];
    for (;;) {
      this.ws();
      if (this.s[this.i] === ']') {
        this.i++;
        return { t: 'arr', items };
      }
      const v = this.value(depth + 1);
      if (!v) return undefined;
      items.push(v);
      this.ws();
      if (this.s[this.i] === ',') this.i++;
      else if (this.s[this.i] !== ']') return undefined;
    }
  }
  object(depth: number): JsonNode | undefined {
    this.i++;
    const entries: [string, JsonNode][] = [];
    for (;;) {
      this.ws();
      if (this.s[this.i] === '}') {
        this.i++;
        return { t: 'obj', entries };
      }
      const q = this.s[this.i];
      if (q !== '"' && q !== "'") return undefined;
      const k = this.string();
      if (k === undefined) return undefined;
      this.ws();
      if (this.s[this.i] !== ':') return undefined;
      this.i++;
      const v = this.value(depth + 1);
      if (!v) return undefined;
      entries.push([k, v]);
      this.ws();
      if (this.s[this.i] === ',') this.i++;
      else if (this.s[this.i] !== '}') return undefined;
    }
  }
}

/** Reads one JSON value starting at `start`; its end index, or undefined when none starts there. */
export function readJsonAt(text: string, start: number): { node: JsonNode; end: number } | undefined {
  const r = new Reader(text);
  r.i = start;
  const node = r.value();
  return node ? { node, end: r.i } : undefined;
}

/** The whole text as one JSON value (surrounding whitespace allowed). */
export function readJson(text: string): JsonNode | undefined {
  const r = new Reader(text);
  const node = r.value();
  if (!node) return undefined;
  r.ws();
  return r.i === text.length ? node : undefined;
}

// ---- JSON values as Python literals ------------------------------------------------------------------

const pyStr = (s: string): string => literal({ kind: 'str', value: s });

export function pyLiteral(n: JsonNode): string {
  switch (n.t) {
    case 'str':
      return pyStr(n.v);
    case 'num':
      return n.raw;
    case 'bool':
      return n.v ? 'True' : 'False';
    case 'null':
      return 'None';
    case 'arr':
      return `[${n.items.map(pyLiteral).join(', ')}]`;
    case 'obj':
      return `{${n.entries.map(([k, v]) => `${pyStr(k)}: ${pyLiteral(v)}`).join(', ')}}`;
  }
}

// ---- helpers on argument strings ---------------------------------------------------------------------

/**
 * Walks `s` from `from`, skipping quoted strings, and calls `visit(i, depth)` for every character outside
 * quotes with the bracket depth before it; stops when `visit` returns true. Returns that index, or -1.
 */
function scanOutsideQuotes(s: string, from: number, visit: (i: number, depth: number) => boolean): number {
  let depth = 0;
  let quote: string | null = null;
  for (let i = from; i < s.length; i++) {
    const c = s[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      continue;
    }
    if (visit(i, depth)) return i;
    if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth--;
  }
  return -1;
}

/** Splits at top-level occurrences of `sep` (outside brackets and quotes). */
function splitTopLevel(s: string, sep: string): string[] {
  const parts: string[] = [];
  let last = 0;
  scanOutsideQuotes(s, 0, (i, depth) => {
    if (depth === 0 && i >= last && s.startsWith(sep, i)) {
      parts.push(s.slice(last, i));
      last = i + sep.length;
    }
    return false;
  });
  parts.push(s.slice(last));
  return parts;
}

/** Index of the bracket closing the one opened at `open` (quotes respected); -1 when unbalanced. */
function closingParen(s: string, open: number): number {
  return scanOutsideQuotes(s, open, (i, depth) => depth === 1 && ')]}'.includes(s[i]!));
}

/** A string a model meant as Python source, not as a str: an argument list ("[3, 1], reverse=True") or one bracketed literal. */
function looksLikeArgumentSource(s: string): boolean {
  const t = s.trim();
  if (t === '') return false;
  if (splitTopLevel(t, ',').length > 1 && /^[[({'"\-\d]|^(True|False|None)\b|^[A-Za-z_]\w*\s*=/.test(t)) return true;
  if (/^[A-Za-z_]\w*\s*=\s*\S/.test(t) && splitTopLevel(t, '=').length === 2) return true;
  if (/^[[({]/.test(t)) return closingParen(t, 0) === t.length - 1;
  // A whole Python string literal, quotes included ("'Hello, World!'").
  if (/^'(?:[^'\\]|\\.)*'$|^"(?:[^"\\]|\\.)*"$/.test(t)) return true;
  return false;
}

/** One bracketed or quoted Python literal written as a string ("[1, 2]", "'abc'"). */
function isOneLiteralSource(s: string): boolean {
  const t = s.trim();
  if (/^[[({]/.test(t)) return closingParen(t, 0) === t.length - 1;
  return /^'(?:[^'\\]|\\.)*'$|^"(?:[^"\\]|\\.)*"$/.test(t);
}

/** The parameter names of a `def` line, in order (`*args`, `**kw` and bare `*` / `/` left out). */
export function paramNames(signature: string): string[] {
  const open = signature.indexOf('(');
  if (open < 0) return [];
  const close = closingParen(signature, open);
  const inside = signature.slice(open + 1, close < 0 ? undefined : close);
  return splitTopLevel(inside, ',')
    .map((p) => p.trim().split(/[:=]/)[0]!.trim())
    .filter((p) => /^[A-Za-z_]\w*$/.test(p));
}

/** An object of arguments as the call's argument string: keywords when its keys name parameters, else positional in order. */
function objectArguments(entries: [string, JsonNode][], params: string[] | undefined): string {
  if (entries.length === 1) {
    const [k, v] = entries[0]!;
    if (v.t === 'str' && looksLikeArgumentSource(v.v)) return v.v.trim();
    if ((k === 'args' || k === 'positional') && v.t === 'arr') return v.items.map(pyLiteral).join(', ');
  }
  const value = (v: JsonNode) => (v.t === 'str' && isOneLiteralSource(v.v) ? v.v.trim() : pyLiteral(v));
  const known = params && params.length > 0 ? new Set(params) : undefined;
  const anyKnown = known ? entries.some(([k]) => known.has(k)) : true;
  if (!anyKnown) return entries.map(([, v]) => value(v)).join(', ');
  return entries.map(([k, v]) => (/^[A-Za-z_]\w*$/.test(k) ? `${k}=${value(v)}` : value(v))).join(', ');
}

/**
 * A call's arguments given as one string. Models also wrap the argument list in brackets: a JSON list of
 * one string holding the argument list (`["[1, 2, 3], reverse=True"]`), or, for a method of two or more
 * parameters, one bracketed list of them (`"[1, 2]"` for `add(a, b)`); a one-parameter method keeps its
 * list argument as written.
 */
function stringArguments(v: string, params: string[] | undefined): string {
  const t = v.trim();
  if (!t.startsWith('[') || closingParen(t, 0) !== t.length - 1) return v;
  const json = readJson(t);
  if (json?.t === 'arr' && json.items.length === 1 && json.items[0]!.t === 'str' && looksLikeArgumentSource(json.items[0]!.v)) return json.items[0]!.v.trim();
  if (params && params.length >= 2) return t.slice(1, -1).trim();
  return v;
}

// ---- JSON tool calls ---------------------------------------------------------------------------------

const get = (n: JsonNode | undefined, ...keys: string[]): JsonNode | undefined => {
  if (n?.t !== 'obj') return undefined;
  for (const k of keys) {
    const hit = n.entries.find(([key]) => key === k);
    if (hit) return hit[1];
  }
  return undefined;
};
const str = (n: JsonNode | undefined) => (n?.t === 'str' ? n.v : undefined);

/** A string holding JSON (the OpenAI wire form of `arguments`) is read as that JSON. */
function unwrapStringJson(n: JsonNode | undefined): JsonNode | undefined {
  if (n?.t !== 'str') return n;
  const t = n.v.trim();
  if (!t.startsWith('{')) return n;
  return readJson(t) ?? n;
}

const TOOL_CALL = 'call_method';
const TOOL_SUBMIT = 'submit_description';
const SUBMIT_NAMES = new Set([TOOL_SUBMIT, 'submit', 'submit_answer', 'final_answer', 'describe']);

/** One JSON object as tool calls (an object may wrap several: `tool_calls: [...]`); [] when it is not one. */
function fromJsonObject(node: JsonNode, raw: string, opts: TextParseOptions): TextToolCall[] {
  const list = get(node, 'tool_calls');
  if (list?.t === 'arr') return list.items.flatMap((item) => fromJsonObject(item, raw, opts));
  const fn = get(node, 'function');
  const inner = fn?.t === 'obj' ? fn : node;
  const name = str(get(inner, 'name', 'tool', 'tool_name', 'function_name')) ?? str(fn);
  if (!name) {
    // {"description": "..."} alone is a submission; {"arguments": "..."} alone is a call.
    const d = str(get(node, 'description'));
    if (d !== undefined && node.t === 'obj' && node.entries.length === 1) return [{ name: TOOL_SUBMIT, description: d, raw }];
    return [];
  }
  const args = unwrapStringJson(get(inner, 'arguments', 'parameters', 'args', 'input', 'kwargs'));
  if (SUBMIT_NAMES.has(name)) {
    const d = str(args) ?? str(get(args, 'description', 'answer', 'text', 'content'));
    if (d !== undefined) return [{ name: TOOL_SUBMIT, description: d, raw }];
    if (args?.t === 'obj') {
      const strings = args.entries.filter(([, v]) => v.t === 'str');
      if (strings.length === 1) return [{ name: TOOL_SUBMIT, description: (strings[0]![1] as { v: string }).v, raw }];
    }
    return [];
  }
  let argString: string | undefined;
  if (args === undefined) argString = '';
  else if (args.t === 'str') argString = stringArguments(args.v, opts.params);
  else if (args.t === 'arr') argString = args.items.map(pyLiteral).join(', ');
  else if (args.t === 'obj') {
    const harness = name === TOOL_CALL ? str(get(args, 'arguments', 'args', 'input', 'inputs')) : undefined;
    argString = harness ?? objectArguments(args.entries, opts.params);
  } else argString = pyLiteral(args);
  if (name === TOOL_CALL || name === opts.entryPoint) return [{ name: TOOL_CALL, arguments: argString, raw }];
  return [{ name, arguments: argString, raw, unknown: true }];
}

// ---- the plain-text protocol -------------------------------------------------------------------------

const CALL_LINE = /^[ \t>*`-]*CALL:?[ \t]+`?([A-Za-z_][\w.]*)[ \t]*\(/gm;
const DESCRIPTION_LINE = /^[ \t>*#`-]*\**description\**[ \t]*:\**[ \t]*/im;

function textProtocolCalls(text: string, opts: TextParseOptions): { calls: TextToolCall[]; tried: boolean } {
  const calls: TextToolCall[] = [];
  let tried = false;
  for (const m of text.matchAll(CALL_LINE)) {
    tried = true;
    const open = m.index! + m[0].length - 1;
    const close = closingParen(text, open);
    if (close < 0) continue;
    const raw = text.slice(m.index!, close + 1).trim();
    const argString = text.slice(open + 1, close).trim();
    const name = m[1]!;
    if (name === opts.entryPoint || name === 'f' || name === TOOL_CALL) calls.push({ name: TOOL_CALL, arguments: argString, raw });
    else calls.push({ name, arguments: argString, raw, unknown: true });
  }
  return { calls, tried };
}

// ---- the whole message -------------------------------------------------------------------------------

const TOOLISH = /<tool_call>|"name"\s*:|'name'\s*:|\bcall_method\b|\bsubmit_description\b|"arguments"\s*:/;

/**
 * Tool calls written in a message's text, in order. Several JSON objects, CALL lines and one DESCRIPTION
 * are all read; a DESCRIPTION comes last (it ends the episode, so calls before it are not run anyway).
 */
export function parseTextToolCalls(text: string | null | undefined, opts: TextParseOptions): TextParse {
  const t = text ?? '';
  if (t.trim() === '') return { calls: [], unparsable: false };
  const calls: TextToolCall[] = [];
  // JSON objects anywhere in the text (fenced, tagged or bare): each `{` that starts a tool call.
  let jsonTried = false;
  for (let i = t.indexOf('{'); i >= 0 && i < t.length; ) {
    const hit = readJsonAt(t, i);
    if (hit && hit.node.t === 'obj') {
      const found = fromJsonObject(hit.node, t.slice(i, hit.end), opts);
      if (found.length > 0) {
        calls.push(...found);
        i = t.indexOf('{', hit.end);
        continue;
      }
      if (get(hit.node, 'name', 'function', 'tool_calls')) jsonTried = true;
    }
    i = t.indexOf('{', i + 1);
  }
  const text_ = textProtocolCalls(t, opts);
  calls.push(...text_.calls);
  // The last DESCRIPTION line is the answer (models often write a heading first, then the description).
  const desc = [...t.matchAll(new RegExp(DESCRIPTION_LINE.source, 'gim'))].pop();
  if (desc) {
    // The description runs to the end, or to a CALL line written after it.
    const rest = t.slice(desc.index! + desc[0].length);
    const nextCall = new RegExp(CALL_LINE.source, 'm').exec(rest);
    const description = (nextCall ? rest.slice(0, nextCall.index) : rest).replace(/\s*(```|<\/tool_call>)\s*$/, '').trim();
    if (description) calls.push({ name: TOOL_SUBMIT, description, raw: t.slice(desc.index!).trim() });
  }
  const unparsable = calls.length === 0 && (jsonTried || text_.tried || TOOLISH.test(t));
  return { calls, unparsable };
}
