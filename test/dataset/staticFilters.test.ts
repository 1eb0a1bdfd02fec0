// The static filters (activities/dataset/analyze.py, ast only): each with a passing and a failing case.
import { describe, expect, it } from 'vitest';
import type { Analysis } from '../../domain/dataset/analysis';
import { analyzeCandidates } from '../../activities/dataset/analyze';
import type { CandidateMethod, KnownInputSource } from '../../domain/dataset/types';

function cand(code: string, inputs: KnownInputSource = { kind: 'call_args', args: ['1'] }, entryPoint?: string): CandidateMethod {
  return { source: 'cruxeval', sourceId: 'x', code, inputs, goldKind: 'code-only', gold: null, meta: {}, ...(entryPoint ? { entryPoint } : {}) };
}

async function one(c: CandidateMethod): Promise<Analysis> {
  const [a] = await analyzeCandidates([c]);
  return a!;
}

const OK = 'def f(x):\n    return x + 1\n';

describe('static filters', () => {
  it('parses', async () => {
    expect((await one(cand(OK))).ok).toBe(true);
    const bad = await one(cand('def f(x)\n    return x'));
    expect(bad).toMatchObject({ ok: false, reason: 'parse-error' });
    expect(bad.detail).toMatch(/SyntaxError/);
  });

  it('one top-level callable entry point', async () => {
    expect((await one(cand(OK, { kind: 'examples', input: '' }))).reason).toBe('no-known-inputs'); // entry found, no inputs
    expect(await one(cand('x = 1\n'))).toMatchObject({ ok: false, reason: 'no-entry-point' });
    expect(await one(cand('def a(x):\n    return 1\ndef b(y):\n    return 2\n', { kind: 'examples', input: '' }))).toMatchObject({
      ok: false,
      reason: 'ambiguous-entry-point',
    });
    // A helper called by the root does not count as a second entry point.
    const helper = await one(cand('def h(x):\n    return x * 2\ndef g(y):\n    return h(y) + 1\nprint(g(3))\n', { kind: 'examples', input: '' }));
    expect(helper).toMatchObject({ ok: true, entry_point: 'g', inputs: ['3'] });
    expect(helper.code).not.toContain('print');
  });

  it('standard library only', async () => {
    expect((await one(cand('import math\ndef f(x):\n    return math.sqrt(x)\n'))).ok).toBe(true);
    expect(await one(cand('import numpy as np\ndef f(x):\n    return np.sqrt(x)\n'))).toMatchObject({ ok: false, reason: 'non-stdlib-import' });
  });

  it('no I/O, input(), randomness, time or dynamic code', async () => {
    const cases: [string, string][] = [
      ['def f(x):\n    return open(x).read()\n', 'uses-io'],
      ['import os\ndef f(x):\n    return os.getcwd()\n', 'uses-io'],
      ['def f(x):\n    return input() + x\n', 'uses-input'],
      ['import random\ndef f(x):\n    return random.random() + x\n', 'uses-randomness'],
      ['import time\ndef f(x):\n    return time.time() + x\n', 'uses-time'],
      ['import datetime\ndef f(x):\n    return datetime.datetime.now()\n', 'uses-time'],
      ['def f(x):\n    return eval(x)\n', 'uses-dynamic-code'],
      ['n = 0\ndef f(x):\n    global n\n    n += 1\n    return n\n', 'stateful'],
    ];
    for (const [code, reason] of cases) expect(await one(cand(code)), code).toMatchObject({ ok: false, reason });
    expect((await one(cand('import datetime\ndef f(x):\n    return datetime.date(2020, 1, x).isoformat()\n'))).ok).toBe(true);
  });

  it('inputs are Python literals; the argument text keeps keywords', async () => {
    const he = await one(
      cand(
        'def g(a, b=2):\n    return a * b\n',
        {
          kind: 'humaneval',
          test: 'def check(candidate):\n    assert candidate([1, 2], b=3) == [1, 2] * 3\n    assert candidate("ab") == "abab"\n    assert candidate(len("x")) == 2\n',
        },
        'g',
      ),
    );
    expect(he).toMatchObject({ ok: true, inputs: ['[1, 2], b=3', "'ab'"], dropped_inputs: { 'non-literal-argument': 1 } });
    const none = await one(cand(OK, { kind: 'call_args', args: ['foo(1)'] }));
    expect(none).toMatchObject({ ok: false, reason: 'no-known-inputs' });
  });

  it('MBPP asserts: the entry point is the function the tests call', async () => {
    const a = await one(
      cand('def helper(x):\n    return x\ndef add(a, b):\n    return helper(a) + b\n', {
        kind: 'asserts',
        asserts: ['assert add(1, 2) == 3', 'assert set(add((1,), (2,))) == {1, 2}'],
      }),
    );
    expect(a).toMatchObject({ ok: true, entry_point: 'add', inputs: ['1, 2', '(1,), (2,)'] });
  });

  it('CodeAlpaca: inputs from literal assignments in the instruction input or the response', async () => {
    const a = await one(
      cand('def combine(list1, list2):\n    return list1 + list2\ncombine(list1, list2)\n', { kind: 'examples', input: 'list1 = [1, 2]\nlist2 = [3]' }),
    );
    expect(a).toMatchObject({ ok: true, entry_point: 'combine', inputs: ['[1, 2], [3]'] });
  });

  it('signature: name, parameters and annotations; no docstring, no body; gold docstring extracted', async () => {
    const a = await one(
      cand('from typing import List\n\ndef f(xs: List[int], k: int = 2) -> int:\n    """Sum of the first k."""\n    return sum(xs[:k])\n', {
        kind: 'call_args',
        args: ['[1, 2, 3]'],
      }),
    );
    expect(a.signature).toBe('def f(xs: List[int], k: int=2) -> int:');
    expect(a.docstring).toBe('Sum of the first k.');
  });

  it('near-duplicate hash ignores names, comments and docstrings; exact hash ignores only comments/docstrings', async () => {
    const [x, y, z] = await analyzeCandidates([
      cand('def f(a):\n    # add one\n    return a + 1\n'),
      cand('def g(b):\n    """Adds one."""\n    return b + 1\n', { kind: 'call_args', args: ['1'] }, 'g'),
      cand('def f(a):\n    return a + 1\n'),
    ]);
    expect(x!.near_hash).toBe(y!.near_hash);
    expect(x!.exact_hash).not.toBe(y!.exact_hash);
    expect(x!.exact_hash).toBe(z!.exact_hash);
  });
});
