// The batch API (bwrap+seccomp): a batch's calls go to the executor in BATCH messages (wire.ts: one
// message, many calls, results streamed back), and each still runs in its own fresh child under the
// batch's limits. Results come back in order; every call has its own limits; a hostile call cannot
// reach its neighbours; an executor that dies mid-batch gives per-call errors; a malformed batch message
// is refused with a clear error. The executor's side without Node: sandbox/tests/test_prefork.py.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { runBatchOn } from '../../platform/sandbox/batch';
import { ExecutorProcess, SandboxCrash } from '../../platform/sandbox/executorProcess';
import { defaultLimits, type CallResult, type SandboxPool } from '../../activities/sandbox/index';
import { buildLaunch } from '../../platform/sandbox/isolation';
import { encodeBatch, encodeRequest, OP } from '../../platform/sandbox/wire';
import { env } from '../../config/env';
import { descendants, newPool } from './helpers';

let pool: SandboxPool;
beforeAll(async () => {
  pool = newPool();
  expect(await pool.mode()).toBe('bwrap+seccomp');
});
afterAll(async () => {
  await pool.close();
});

const outcome = (r: CallResult | undefined) => (r?.ok ? r.value : r?.error.type);
const LOOK =
  'import builtins, os, sys\ndef f(i):\n    return [i, os.getpid(), getattr(builtins, "pau_mark", None), "json" in sys.modules and hasattr(sys.modules["json"], "pau_mark")]\n';
const LIMITS = { timeoutMs: 2000, cpuSeconds: 3, memoryMb: 256, stdoutBytes: 65536, resultBytes: 1_000_000 };

describe('batch API', () => {
  it('returns results in call order, each call in its own process, over several messages', async () => {
    const n = 150; // more than one BATCH message (64 calls each)
    const seen: number[] = [];
    const r = await pool.runBatch(
      { source: 'import os\ndef f(i):\n    return [i * 2, os.getpid()]\n', entry: 'f', calls: Array.from({ length: n }, (_, i) => [String(i)]) },
      { onCall: ({ index }) => seen.push(index) },
    );
    const values = r.results.map((x) => outcome(x) as [number, number]);
    expect(values.map((v) => v[0])).toEqual(Array.from({ length: n }, (_, i) => i * 2));
    expect(new Set(values.map((v) => v[1])).size).toBe(n);
    expect(seen).toEqual(Array.from({ length: n }, (_, i) => i)); // streamed, in order
  });

  it('every call has its own limits: a hang, a flood and an allocation do not shorten their neighbours', async () => {
    const src = [
      'import time',
      'def f(kind):',
      "    if kind == 'hang':",
      '        while True: pass',
      "    if kind == 'flood':",
      "        while True: print('z' * 1000)",
      "    if kind == 'alloc':",
      '        return len(bytearray(600 << 20))',
      "    if kind == 'slow':",
      '        time.sleep(0.25)',
      '    return kind',
    ].join('\n');
    const kinds = ['ok', 'hang', 'slow', 'flood', 'slow', 'alloc', 'slow'];
    const r = await pool.runBatch({ source: src, entry: 'f', calls: kinds.map((k) => [`'${k}'`]), limits: { timeoutMs: 400, memoryMb: 256 } });
    expect(r.results.map(outcome)).toEqual(['ok', 'Timeout', 'slow', 'OutputLimit', 'slow', 'MemoryLimit', 'slow']);
    // Each slow call (250 ms) fits its own 400 ms even right after a call that used all of its time.
    for (const i of [2, 4, 6]) expect(r.results[i]!.ms).toBeLessThan(400);
  });

  it('a hostile call inside a batch does not affect its neighbours', async () => {
    const attacks = [
      'import builtins, json\ndef f(i):\n    builtins.pau_mark = i\n    json.pau_mark = i\n    return i\n',
      'import os, signal\ndef f(i):\n    os.kill(os.getppid(), signal.SIGKILL)\n    return i\n',
      'import os, signal\ndef f(i):\n    os.kill(-1, signal.SIGKILL)\n    return i\n',
      'import os\ndef f(i):\n    while True:\n        os.fork()\n',
      "def f(i):\n    open('left-behind', 'w').write('x')\n    return i\n",
      'import ctypes\ndef f(i):\n    return ctypes.string_at(0)\n',
    ];
    // One batch per attack (a batch is one method): the attack between two probes, and the next batch
    // (probes only) on the same executor right after.
    for (const attack of attacks) {
      const r = await pool.runBatch({ source: attack, entry: 'f', calls: [['1'], ['2'], ['3']], limits: { timeoutMs: 1000 } });
      expect(r.results).toHaveLength(3);
      const probes = await pool.runBatch({
        source: `${LOOK}\ndef g(i):\n    import os\n    return os.listdir('.')\n`,
        entry: 'f',
        calls: [['0'], ['1'], ['2']],
      });
      expect(probes.results.map((x) => (outcome(x) as unknown[]).slice(2))).toEqual([
        [null, false],
        [null, false],
        [null, false],
      ]);
      const files = await pool.runBatch({ source: "import os\ndef g():\n    return os.listdir('.')\n", entry: 'g', calls: [[]] });
      expect(outcome(files.results[0])).toEqual([]);
    }
  });

  it('an executor that dies mid-batch: the answered calls keep their results, the rest fail per call', async () => {
    const x = new ExecutorProcess(buildLaunch('bwrap', env().PAU_PYTHON, env().PAU_SANDBOX_BWRAP, 0));
    await x.ready;
    const calls = Array.from({ length: 8 }, (_, i) => [String(i)]);
    const limits = defaultLimits();
    const run = runBatchOn(x, { source: 'import time\ndef f(i):\n    time.sleep(0.05)\n    return i\n', entry: 'f', calls }, limits, ({ index }) => {
      if (index === 2) x.kill();
    });
    const err = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SandboxCrash);
    const partial = (err as SandboxCrash).partial;
    expect(partial.slice(0, 3).map(outcome)).toEqual([0, 1, 2]);
    expect(partial.slice(3).filter(Boolean)).toEqual([]);

    // Through the pool (which retries once on a fresh executor): killed in both attempts, every call
    // still gets a result, the unanswered ones a SandboxError naming the crash.
    const p = newPool();
    try {
      const r = await p.runBatch(
        { source: 'import time\ndef f(i):\n    time.sleep(0.5 if i > 2 else 0)\n    return i\n', entry: 'f', calls },
        {
          onCall: ({ index }) => {
            if (index !== 2) return;
            for (const line of descendants()) {
              const [pid, , cmd] = line.split(' ');
              if (cmd === 'bwrap') process.kill(Number(pid), 'SIGKILL');
            }
          },
        },
      );
      expect(r.results.slice(0, 3).map(outcome)).toEqual([0, 1, 2]);
      for (const res of r.results.slice(3))
        expect(res).toMatchObject({ ok: false, error: { type: 'SandboxError', message: expect.stringMatching(/failed twice/) } });
    } finally {
      await p.close();
    }
  });

  it('a malformed batch message is refused with a clear error', async () => {
    // Built by this side: validated before anything is written.
    expect(() => encodeBatch({ seq: 1, jobs: [], limits: LIMITS })).toThrow(ZodError);
    expect(() => encodeBatch({ seq: 1, jobs: ['{}'], limits: { ...LIMITS, timeoutMs: -1 } })).toThrow(ZodError);
    // Received by the executor: a count its payload cannot hold. It answers ERROR and stops; the calls
    // queued behind it fail with that message.
    const x = new ExecutorProcess(buildLaunch('bwrap', env().PAU_PYTHON, env().PAU_SANDBOX_BWRAP, 0));
    await x.ready;
    const raw = encodeRequest(OP.batch, 1, '\u0005\u0000\u0000\u0000', LIMITS); // 5 calls, no jobs
    (x as unknown as { proc: { stdin: NodeJS.WritableStream } }).proc.stdin.write(raw);
    const [queued] = x.runJobs(['{"kind":"call"}'], LIMITS);
    await expect(queued).rejects.toThrow(/malformed batch request .*call 0 of 5: no room for its length/);
    await x.close();
  });
});
