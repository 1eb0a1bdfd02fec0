// The filters that run code, on the real sandbox (activities/sandbox): each with a passing and a failing case.
import { afterAll, describe, expect, it } from 'vitest';
import { checkOneMethod } from '../../activities/dataset/checkBatch';
import { poolDatasetSandbox } from '../../activities/dataset/sandboxClient';
import { closeSharedSandboxPool } from '../../activities/sandbox/index';
import { BuildLimits } from '../../domain/dataset/config';
import { runtimeVerdict } from '../../domain/dataset/filters';
import type { MethodRow } from '../../db/schema/datasets';

const limits = BuildLimits.parse({ timeoutMs: 1000 });
const sandbox = poolDatasetSandbox();
afterAll(() => closeSharedSandboxPool());

function method(code: string, inputs: string[], entryPoint = 'f'): MethodRow {
  return {
    id: 't/1',
    source: 'cruxeval',
    sourceId: '1',
    entryPoint,
    signature: '',
    code,
    codeHash: '',
    nearHash: '',
    goldKind: 'code-only',
    goldDescription: null,
    probeInputs: inputs,
    heldoutInputs: [],
    probeOutputs: null,
    heldoutOutputs: null,
    heldoutGenerated: null,
    heldoutGeneratedOutputs: null,
    codeMatchExclusion: null,
    behaviourKey: null,
    checkKey: null,
    checkedAt: null,
    verdict: 'pending',
    rejectReasons: [],
    meta: {},
    createdAt: new Date(),
    updatedAt: new Date(),
  };
}
const check = (code: string, inputs: string[]) => checkOneMethod(sandbox, method(code, inputs), limits);

describe('runtime filters (real sandbox)', () => {
  it('runs on its probe inputs within limits', async () => {
    const ok = await check('def f(n):\n    return sum(range(n))\n', ['10', '100']);
    expect(ok).toMatchObject({
      accepted: true,
      outcomes: [
        { ok: true, repr: '45' },
        { ok: true, repr: '4950' },
      ],
    });
    const slow = await check('def f(n):\n    while True:\n        n += 1\n', ['1']);
    expect(slow).toMatchObject({ accepted: false, reasons: ['exceeds-limits'] });
  });

  it('inputs that raise are dropped; a method raising on every input is rejected', async () => {
    const some = await check('def f(n):\n    return 10 // n\n', ['2', '0']);
    expect(some).toMatchObject({ accepted: true, droppedInputs: [1] });
    const all = await check('def f(n):\n    return 10 // n\n', ['0']);
    expect(all).toMatchObject({ accepted: false, reasons: ['no-working-inputs'] });
  });

  it('deterministic and stateless', async () => {
    const pure = await check('def f(xs):\n    return sorted(xs)\n', ['[3, 1, 2]']);
    expect(pure.accepted).toBe(true);
    const hashy = await check('def f(xs):\n    return list(set(xs))\n', ["['apple', 'banana', 'cherry', 'date', 'elder', 'fig', 'grape']"]);
    expect(hashy).toMatchObject({ accepted: false, reasons: ['nondeterministic'] });
    const stateful = await check('seen = []\ndef f(x):\n    seen.append(x)\n    return len(seen)\n', ['1', '2']);
    expect(stateful).toMatchObject({ accepted: false, reasons: ['stateful'] });
  });

  it('not None for every input', async () => {
    expect((await check('def f(x):\n    return x if x > 0 else None\n', ['1', '-1'])).accepted).toBe(true);
    expect(await check('def f(x):\n    print(x)\n', ['1', '2'])).toMatchObject({ accepted: false, reasons: ['returns-none'] });
  });

  it('outputs are Python literals', async () => {
    expect((await check('def f(x):\n    return {x: (x, [x])}\n', ['1'])).accepted).toBe(true);
    expect(await check('class P:\n    pass\ndef f(x):\n    return P()\n', ['1'])).toMatchObject({ accepted: false, reasons: ['non-literal-output'] });
  });

  it('a module that fails to load is rejected', async () => {
    expect(await check('def f(x):\n    return x\nraise ValueError("boom")\n', ['1'])).toMatchObject({ accepted: false });
  });
});

describe('runtimeVerdict (pure)', () => {
  it('compares two runs when the sandbox offers no determinism check', () => {
    expect(runtimeVerdict([{ ok: true, repr: '1' }], [{ ok: true, repr: '1' }]).accepted).toBe(true);
    expect(runtimeVerdict([{ ok: true, repr: '1' }], [{ ok: true, repr: '2' }]).reasons).toEqual(['nondeterministic']);
  });
});
