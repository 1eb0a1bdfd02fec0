// The text tool-call parser (domain/episode/textToolCalls.ts): hand-written cases for each form it
// reads, then the corpus of real outputs of the three local models on the project's prompts
// (test/fixtures/toolCallCorpus, recorded by harness/bench/recordToolCallCorpus.ts).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { paramNames, parseTextToolCalls, pyLiteral, readJson, type TextToolCall } from '../../domain/episode/textToolCalls';
import { literal } from '../../domain/python/print';

const pyStr = (s: string) => literal({ kind: 'str', value: s });
import { callsBeforeDescription, textToolCallsAsParsed } from '../../domain/episode/toolCalls';
import { PROJECT_ROOT } from '../../config/env';

const opts = { entryPoint: 'sort_numbers', params: ['numbers'] };
const brief = (calls: TextToolCall[]) =>
  calls.map((c) =>
    'description' in c ? { description: c.description } : 'unknown' in c ? { unknown: c.name, arguments: c.arguments } : { call: c.arguments },
  );
const parse = (text: string, o: { entryPoint: string; params?: string[] } = opts) => {
  const p = parseTextToolCalls(text, o);
  return { calls: brief(p.calls), unparsable: p.unparsable };
};

describe('JSON tool calls in text', () => {
  it('reads bare, fenced and <tool_call>-tagged objects, several per message, in order', () => {
    const text = [
      '{"name": "call_method", "arguments": {"arguments": "\'3 1 2\'"}}',
      '```json\n{"name": "call_method", "arguments": "\'\'"}\n```',
      '<tool_call>\n{"name": "sort_numbers", "arguments": {"numbers": "one two"}}\n</tool_call>',
    ].join('\nand then\n');
    expect(parse(text)).toEqual({ calls: [{ call: "'3 1 2'" }, { call: "''" }, { call: "numbers='one two'" }], unparsable: false });
  });

  it("takes the method's own name as a call_method; another name is an unknown tool", () => {
    expect(parse('{"name": "sort_numbers", "arguments": "\'a b\'"}').calls).toEqual([{ call: "'a b'" }]);
    expect(parse('{"name": "sorter", "arguments": {"x": 1}}').calls).toEqual([{ unknown: 'sorter', arguments: '1' }]);
  });

  it('turns an object of keyword arguments into Python literals, keeping the order (also of integer-like keys)', () => {
    const o = { entryPoint: 'f', params: ['b', 'a', 'c'] };
    expect(parse('{"name": "f", "arguments": {"b": true, "a": null, "c": [1.0, "x\'y", {"2": false, "1": -3e2}]}}', o).calls).toEqual([
      { call: `b=True, a=None, c=[1.0, "x'y", {'2': False, '1': -3e2}]` },
    ]);
  });

  it('passes positionally when no key names a parameter; `args` lists are positional', () => {
    const o = { entryPoint: 'add', params: ['a', 'b'] };
    expect(parse('{"name": "add", "arguments": {"x": 1, "y": 2}}', o).calls).toEqual([{ call: '1, 2' }]);
    expect(parse('{"name": "add", "arguments": {"args": [1, "two"]}}', o).calls).toEqual([{ call: "1, 'two'" }]);
    expect(parse('{"name": "add", "arguments": [4, 5]}', o).calls).toEqual([{ call: '4, 5' }]);
  });

  it("keeps the harness's string form, also when a model puts it under a parameter name", () => {
    expect(parse('{"name": "sort_numbers", "arguments": {"numbers": "[3, 1, 2], reverse=True"}}').calls).toEqual([{ call: '[3, 1, 2], reverse=True' }]);
    expect(parse('{"name": "sort_numbers", "arguments": {"numbers": "\'Hello, World!\'"}}').calls).toEqual([{ call: "'Hello, World!'" }]);
    // a plain string with a comma stays a string
    expect(parse('{"name": "sort_numbers", "arguments": {"numbers": "Hello, World!"}}').calls).toEqual([{ call: "numbers='Hello, World!'" }]);
  });

  it('reads the OpenAI wire form (arguments as a JSON string) and {"function": {...}} wrappers', () => {
    expect(parse('{"name": "call_method", "arguments": "{\\"arguments\\": \\"1, 2\\"}"}').calls).toEqual([{ call: '1, 2' }]);
    expect(parse('{"type": "function", "function": {"name": "sort_numbers", "arguments": {"numbers": "x"}}}').calls).toEqual([{ call: "numbers='x'" }]);
    expect(
      parse('{"tool_calls": [{"function": {"name": "call_method", "arguments": "\'a\'"}}, {"function": {"name": "call_method", "arguments": "\'b\'"}}]}').calls,
    ).toEqual([{ call: "'a'" }, { call: "'b'" }]);
  });

  it("tolerates single quotes, Python's True/None and trailing commas", () => {
    expect(
      parse("{'name': 'sort_numbers', 'arguments': {'numbers': 'x', 'flag': True,}}", { entryPoint: 'sort_numbers', params: ['numbers', 'flag'] }).calls,
    ).toEqual([{ call: "numbers='x', flag=True" }]);
  });

  it('reads submissions in their usual shapes', () => {
    expect(parse('{"name": "submit_description", "arguments": {"description": "Sorts words."}}').calls).toEqual([{ description: 'Sorts words.' }]);
    expect(parse('{"name": "submit_description", "arguments": "Sorts words."}').calls).toEqual([{ description: 'Sorts words.' }]);
    expect(parse('```json\n{"description": "Sorts words."}\n```').calls).toEqual([{ description: 'Sorts words.' }]);
  });

  it('says unparsable when the text tried a tool call that cannot be read, and not for prose', () => {
    expect(parse('{"name": "sort_numbers", "arguments": {"numbers": "\'Hello, World!\'}}')).toEqual({ calls: [], unparsable: true });
    expect(parse('<tool_call>\ncall_method with 3\n</tool_call>')).toEqual({ calls: [], unparsable: true });
    expect(parse('The function sorts numbers. Example: {1, 2} is a set.')).toEqual({ calls: [], unparsable: false });
    expect(parse('```python\ndef sort_numbers(numbers):\n    return sorted(numbers)\n```')).toEqual({ calls: [], unparsable: false });
    expect(parse('')).toEqual({ calls: [], unparsable: false });
  });
});

describe('the plain-text protocol', () => {
  it('reads CALL lines (nested brackets, parentheses inside strings, markdown emphasis) and the last DESCRIPTION', () => {
    const text = "CALL sort_numbers('a (b) c')\n**CALL f([1, (2, 3)], key=len)**\nDESCRIPTION: heading\n\n**Description:** Sorts the words\nof the string.";
    expect(parse(text).calls).toEqual([{ call: "'a (b) c'" }, { call: '[1, (2, 3)], key=len' }, { description: 'Sorts the words\nof the string.' }]);
  });

  it('ends a description at a CALL line written after it; an unbalanced call is unparsable', () => {
    expect(parse('DESCRIPTION: Sorts.\nCALL sort_numbers("x")').calls).toEqual([{ call: '"x"' }, { description: 'Sorts.' }]);
    expect(parse('CALL sort_numbers([1, 2')).toEqual({ calls: [], unparsable: true });
  });
});

describe('helpers', () => {
  it("writes Python's repr of strings", () => {
    expect(pyStr('abc')).toBe("'abc'");
    expect(pyStr("it's")).toBe('"it\'s"');
    expect(pyStr('a\'b"c\\\n\t\u0001')).toBe("'a\\'b\"c\\\\\\n\\t\\x01'");
    expect(pyLiteral(readJson('[true, null, 1.50, "x"]')!)).toBe("[True, None, 1.50, 'x']");
  });

  it('reads parameter names from a signature', () => {
    expect(paramNames('def f(a, b: int = 3, *args, c=(1, 2), **kw) -> list[int]:')).toEqual(['a', 'b', 'c']);
    expect(paramNames('def g():')).toEqual([]);
  });

  it('turns text calls into harness calls; calls written beside a description win while calls can run', () => {
    const text = parseTextToolCalls('CALL sort_numbers("b a")\nDESCRIPTION: Sorts.', opts);
    const parsed = textToolCallsAsParsed(text, 'text_4', 'text');
    expect(parsed.map((p) => [p.kind, p.id])).toEqual([
      ['call', 'text_4_0'],
      ['submit', 'text_4_1'],
    ]);
    expect(callsBeforeDescription(parsed).map((p) => (p.kind === 'problem' ? p.problem : p.kind))).toEqual(['call', 'description_with_calls']);
    const bad = textToolCallsAsParsed(parseTextToolCalls('<tool_call>?</tool_call>', opts), 'text_2', 'native');
    expect(bad).toMatchObject([{ kind: 'problem', problem: 'unparsable_tool_call' }]);
  });
});

// ---- the corpus of real outputs ------------------------------------------------------------------------

interface CorpusRecord {
  id: string;
  signature: string;
  content: string | null;
  toolCalls: { name: string; arguments: string }[];
  turn: 'first' | 'final';
}
const CORPUS_DIR = path.join(PROJECT_ROOT, 'test', 'fixtures', 'toolCallCorpus');
const corpus: CorpusRecord[] = fs
  .readdirSync(CORPUS_DIR)
  .filter((f) => f.endsWith('.json'))
  .flatMap((f) => (JSON.parse(fs.readFileSync(path.join(CORPUS_DIR, f), 'utf8')) as { records: CorpusRecord[] }).records);
const parseRecord = (r: CorpusRecord) => {
  const entryPoint = /def\s+(\w+)/.exec(r.signature)![1]!;
  const p = parseTextToolCalls(r.content, { entryPoint, params: paramNames(r.signature) });
  return { calls: brief(p.calls), unparsable: p.unparsable };
};

/** What each recorded 0.5B output must parse to (checked by hand against the text). */
const EXPECTED_05B: Record<string, ReturnType<typeof parse>> = {
  '0-native-first-t0': { calls: [{ call: '[3, 1, 2], reverse=True' }], unparsable: false },
  '1-native-first-t0': { calls: [{ call: 'a=3, b=1' }], unparsable: false },
  '2-native-first-t0.8': { calls: [{ call: 'l=[3, 1, 2]' }], unparsable: false },
  '3-native-first-t0': { calls: [{ call: "text='Hello, World!'" }], unparsable: false },
  // the model forgot a closing quote: an attempt, not readable
  '3-native-first-t0.8': { calls: [], unparsable: true },
  '0-text-first-t0': { calls: [{ call: '[3, 1, 2], reverse=True' }, { description: 'Sorts a list of numbers in descending order.' }], unparsable: false },
  '1-text-first-t0': { calls: [{ description: 'The function `add` takes two arguments, `a` and `b`, and returns their sum.' }], unparsable: false },
  '0-native-final-t0': { calls: [{ call: "'three one five'" }], unparsable: false },
};

/** The 1.5B (greedy only): the harness tool with the argument list wrapped in brackets, many CALL lines. */
const EXPECTED_15B: Record<string, { first: ReturnType<typeof parse>['calls']; count: number }> = {
  '0-native-first-t0': { first: [{ call: '[1, 2, 3], reverse=True' }], count: 1 }, // ["[1, 2, 3], reverse=True"]
  '1-native-first-t0': { first: [{ call: '1, 2' }], count: 1 }, // "[1, 2]" for add(a, b)
  '2-native-first-t0': { first: [{ call: '[[1, 2, 3], reverse=True]' }], count: 1 }, // one parameter: kept as written
  '1-text-first-t0': { first: [{ call: '3, 1' }, { call: '1, 2' }, { call: '2, 3' }], count: 24 }, // cut at max_tokens: the unbalanced last line is dropped
  '0-native-final-t0': { first: [], count: 0 }, // a prose description after the final ask
};

describe('the corpus of real local-model outputs', () => {
  it('holds a few dozen outputs of each model that could be recorded, with how they were recorded', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(40);
    for (const f of fs.readdirSync(CORPUS_DIR).filter((x) => x.endsWith('.json'))) {
      expect(JSON.parse(fs.readFileSync(path.join(CORPUS_DIR, f), 'utf8'))).toHaveProperty('how');
    }
  });

  it('parses the 0.5B outputs as checked by hand', () => {
    for (const [id, want] of Object.entries(EXPECTED_05B)) {
      const r = corpus.find((x) => x.id === `local/qwen2.5-coder-0.5b/${id}`);
      expect(r, id).toBeDefined();
      expect(parseRecord(r!), id).toEqual(want);
    }
  });

  it('parses the 1.5B outputs as checked by hand', () => {
    for (const [id, want] of Object.entries(EXPECTED_15B)) {
      const r = corpus.find((x) => x.id === `local/qwen2.5-coder-1.5b/${id}`);
      expect(r, id).toBeDefined();
      const p = parseRecord(r!);
      expect(p.calls.slice(0, want.first.length), id).toEqual(want.first);
      expect(p.calls.length, id).toBe(want.count);
      expect(p.unparsable, id).toBe(false);
    }
  });

  it('reads a call from every first turn that wrote a JSON tool call, and never keeps JSON as a description', () => {
    for (const r of corpus) {
      const p = parseRecord(r);
      for (const c of p.calls) if ('description' in c) expect((c.description ?? '').trim().startsWith('{'), r.id).toBe(false);
      if (r.toolCalls.length === 0 && /"name"\s*:\s*"(call_method|submit_description|\w+)"/.test(r.content ?? '')) {
        expect(p.calls.length > 0 || p.unparsable, r.id).toBe(true);
      }
    }
  });

  it("finds no tool call in SmolLM2's prose (it does not follow the protocol) and does not call it unparsable", () => {
    const smol = corpus.filter((r) => r.id.startsWith('local/smollm2-135m/'));
    expect(smol.length).toBeGreaterThanOrEqual(20);
    for (const r of smol) expect(parseRecord(r), r.id).toEqual({ calls: [], unparsable: false });
  });
});
