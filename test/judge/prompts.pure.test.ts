import { describe, expect, it } from 'vitest';
import { bindEntryPoint, buildCoderMessages, extractCode } from '../../domain/judge/coderPrompt';
import { readBlock } from '../../domain/judge/judgePrompt';
import { JUDGE_SYSTEM, parseScore, RUBRIC, rationale } from '../../domain/judge/formats/rationale';

describe('parseScore', () => {
  const cases: [string, string, number | null][] = [
    ['plain', 'Good description.\nSCORE: 4', 4],
    ['bold', 'Fine.\n**SCORE: 5**', 5],
    ['bold number', 'Fine.\nScore: **3**', 3],
    ['heading', 'Meh.\n### SCORE: 2', 2],
    ['out of five', 'SCORE: 4/5', 4],
    ['decimal zero', 'SCORE: 4.0', 4],
    ['equals sign', 'SCORE = 1', 1],
    ['trailing period', 'SCORE: 3.', 3],
    ['backticks', '`SCORE: 5`', 5],
    ['last line wins', 'A first guess, SCORE: 2\nOn reflection...\nSCORE: 4', 4],
    ['last score line wins over trailing prose', 'SCORE: 3\nThat is my verdict.', 3],
    ['lowercase', 'score: 5', 5],
    ['missing', 'The description is good.', null],
    ['out of range', 'SCORE: 7', null],
    ['zero', 'SCORE: 0', null],
    ['fractional', 'SCORE: 3.5', null],
    ['an out-of-range last line is not rescued by an earlier one', 'SCORE: 4\nSCORE: 9', null],
    ['empty', '', null],
    ['word in prose is not a score line', 'I would score this highly: 5 stars maybe', null],
  ];
  for (const [name, text, expected] of cases) it(name, () => expect(parseScore(text)).toBe(expected));
});

describe('judge prompt', () => {
  it('anchors every rubric level in words and asks for the SCORE line', () => {
    for (const n of [1, 2, 3, 4, 5] as const) expect(JUDGE_SYSTEM).toContain(`${n} - ${RUBRIC[n]}`);
    expect(JUDGE_SYSTEM).toContain('SCORE: n');
  });
  it('tells the judge that only return values and exceptions were observable (issue 12, point 9)', () => {
    // The system prompt of every judgment, whatever the method: in-place mutation of arguments, printed
    // output and side effects were invisible to the agent and must not count against its description.
    const [sys] = rationale.messages({
      signature: 'def f(xs):',
      code: 'def f(xs):\n    xs.sort()\n    return len(xs)',
      goldDescription: 'Sorts xs in place and returns its length.',
      agentDescription: 'Returns the length of xs.',
    });
    expect(sys?.content).toBe(JUDGE_SYSTEM);
    const rules = JUDGE_SYSTEM.slice(JUDGE_SYSTEM.indexOf('Rules:'), JUDGE_SYSTEM.indexOf('Rubric:')).replace(/\s+/g, ' ');
    expect(rules).toContain('observed only what each call returned or the exception it raised');
    expect(rules).toMatch(/arguments in place .* invisible to them/);
    expect(rules).toContain('do not count their absence against the description');
  });
  it('shows the code, the gold and the candidate in readable blocks', () => {
    const [sys, user] = rationale.messages({
      signature: 'def f(x):',
      code: 'def f(x):\n    return x + 1',
      goldDescription: 'Adds one.',
      agentDescription: 'Returns x plus 1.',
    });
    expect(sys?.role).toBe('system');
    expect(readBlock(user!.content, 'method_code')).toBe('def f(x):\n    return x + 1');
    expect(readBlock(user!.content, 'reference_description')).toBe('Adds one.');
    expect(readBlock(user!.content, 'candidate_description')).toBe('Returns x plus 1.');
  });
  it('says code-only when the gold is missing (CruxEval)', () => {
    const [, user] = rationale.messages({ signature: 'def f(x):', code: 'def f(x): return x', goldDescription: null, agentDescription: '' });
    expect(readBlock(user!.content, 'reference_description')).toBeUndefined();
    expect(user!.content).toContain('judge against the code alone');
    expect(readBlock(user!.content, 'candidate_description')).toBe('(empty)');
  });
});

describe('coder prompt and code extraction', () => {
  it('the coder sees the signature and the description, never code', () => {
    const msgs = buildCoderMessages({ signature: 'def add_one(x):', entryPoint: 'add_one', description: 'Adds one.' });
    const all = msgs.map((m) => m.content).join('\n');
    expect(all).toContain('def add_one(x):');
    expect(readBlock(all, 'description')).toBe('Adds one.');
  });
  const code = 'def f(x):\n    return x + 1\n';
  it('takes the fenced python block that defines the entry point', () => {
    expect(extractCode(`Here:\n\`\`\`python\n${code}\`\`\`\nDone.`, 'f')).toBe(code);
  });
  it('prefers the last block defining the function over examples', () => {
    const ans = `\`\`\`python\nprint(f(1))\n\`\`\`\n\`\`\`python\ndef f(x):\n    return 0\n\`\`\`\nBetter:\n\`\`\`python\n${code}\`\`\``;
    expect(extractCode(ans, 'f')).toBe(code);
  });
  it('keeps imports and helpers in the block', () => {
    const c = 'import math\n\ndef _h(v):\n    return v\n\ndef f(x):\n    return math.floor(_h(x))\n';
    expect(extractCode(`\`\`\`py\n${c}\`\`\``, 'f')).toBe(c);
  });
  it('reads unlabeled fences, unterminated fences and unfenced code', () => {
    expect(extractCode(`\`\`\`\n${code}\`\`\``, 'f')).toBe(code);
    expect(extractCode(`\`\`\`python\n${code}`, 'f')).toBe(code);
    expect(extractCode(`Sure, here it is.\n${code}`, 'f')).toBe(code);
  });
  it('does not mistake a similarly named function', () => {
    expect(extractCode('```python\ndef fx(x):\n    return 1\n```', 'f')).toBe('def fx(x):\n    return 1\n'); // last resort: any python block
    expect(extractCode('I cannot write this.', 'f')).toBeNull();
    expect(extractCode('', 'f')).toBeNull();
  });
});

describe('entry point binding', () => {
  it('binds a respelt entry point name to the function the coder wrote', () => {
    const code = extractCode('```python\ndef check_occurrences(xs):\n    return {}\n```', 'check_occurences');
    expect(code).toBe('def check_occurrences(xs):\n    return {}\n\ncheck_occurences = check_occurrences\n');
  });
  it('leaves code that defines the entry point, short names and unrelated names alone', () => {
    expect(bindEntryPoint('def tuple_to_dict(t):\n    return {}\n', 'tuple_to_dict')).toBe('def tuple_to_dict(t):\n    return {}\n');
    expect(bindEntryPoint('def sortt(x):\n    return x\n', 'sort')).toBe('def sortt(x):\n    return x\n');
    expect(bindEntryPoint('def helper_fn(x):\n    return x\n', 'count_vowels')).toBe('def helper_fn(x):\n    return x\n');
  });
});
