// Pre-forked spares on the production path (bwrap+seccomp, through the pool): a call runs in a spare
// that was already forked, configured and waiting before the call was sent, and that spare serves it
// alone (nothing one call sets reaches the next); limits and the filter hold on it; bursts larger than
// the spare pool and the fork-per-call baseline (spares 0) are served; no spare outlives its executor.
// The executor's side of this, over its wire protocol without Node: sandbox/tests (pythonTests.test.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CallResult, SandboxPool } from '../../activities/sandbox/index';
import { SANDBOX_SRC } from '../../platform/sandbox/isolation';
import { call1, descendants, newPool } from './helpers';
import { sleep } from '../../platform/process/processes';

function value(r: CallResult | undefined): unknown {
  if (!r?.ok) throw new Error(`call failed: ${JSON.stringify(r)}`);
  return r.value;
}

/** Host pid -> pid inside the sandbox's pid namespace (last NSpid field), for the live descendants. */
function nsPids(): Map<number, { inner: number; args: string; ppid: number }> {
  const out = new Map<number, { inner: number; args: string; ppid: number }>();
  for (const line of descendants()) {
    const [pid, , ...args] = line.split(' ');
    try {
      const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      const ns = /^NSpid:\s+(.*)$/m.exec(status)?.[1]?.trim().split(/\s+/).map(Number) ?? [];
      const ppid = Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]);
      out.set(Number(pid), { inner: ns[ns.length - 1] ?? Number(pid), args: args.join(' '), ppid });
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/** Spares of the pool's executors: executor.py processes whose parent is an executor.py process. */
function spares(): { host: number; inner: number }[] {
  const all = nsPids();
  const py = [...all].filter(([, p]) => p.args.includes('executor.py') && !p.args.startsWith('bwrap'));
  const pyPids = new Set(py.map(([pid]) => pid));
  return py.filter(([, p]) => pyPids.has(p.ppid)).map(([host, p]) => ({ host, inner: p.inner }));
}

async function waitFor(cond: () => boolean, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond()) return true;
    await sleep(10);
  }
  return cond();
}

const alive = (pid: number) => {
  try {
    return !/^State:\s+Z/m.test(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
};

async function withPool<T>(opts: Parameters<typeof newPool>[0], fn: (p: SandboxPool) => Promise<T>): Promise<T> {
  const p = newPool(opts);
  try {
    expect(await p.mode()).toBe('bwrap+seccomp');
    return await fn(p);
  } finally {
    await p.close();
  }
}

describe('pre-forked spares', () => {
  it('each call runs on a spare that was waiting before it was sent, used once; state set by one call is absent in the next', async () => {
    await withPool({ spares: 3 }, async (p) => {
      const probe = [
        'import builtins, math, os, resource',
        'def f(tag):',
        "    before = [getattr(builtins, 'pau_mark', None), math.pi, os.listdir('.')]",
        '    builtins.pau_mark = tag',
        '    math.pi = 3',
        "    open('left-by-' + tag, 'w').write(tag)",
        "    status = dict(l.split(':', 1) for l in open('/proc/self/status').read().splitlines() if ':' in l)",
        "    return [os.getpid(), before, status['Seccomp'].strip(), status['NoNewPrivs'].strip(), list(resource.getrlimit(resource.RLIMIT_AS))]",
      ].join('\n');
      const used = new Set<number>();
      for (let i = 0; i < 5; i++) {
        expect(await waitFor(() => spares().length === 3), 'three spares waiting').toBe(true);
        const waiting = spares();
        const [pid, before, filter, noNewPrivs, as] = value(await call1(p, probe, [JSON.stringify(`c${i}`)], { memoryMb: 300 })) as [
          number,
          unknown[],
          string,
          string,
          number[],
        ];
        expect(waiting.map((s) => s.inner)).toContain(pid);
        expect(used.has(pid)).toBe(false);
        used.add(pid);
        expect(before).toEqual([null, { float: Math.PI }, []]);
        expect([filter, noNewPrivs]).toEqual(['2', '1']); // the seccomp filter is on, no new privileges
        expect(as).toEqual([300 * 2 ** 20, 300 * 2 ** 20]);
        const host = waiting.find((s) => s.inner === pid)!.host;
        expect(await waitFor(() => !alive(host)), 'the spare is gone after its call').toBe(true);
      }
    });
  });

  it('limits and the filter hold on a spare: memory, time, fork, sockets, signals to others', async () => {
    await withPool({ spares: 2 }, async (p) => {
      await waitFor(() => spares().length === 2);
      expect(await call1(p, 'def f():\n    return len(bytearray(400 << 20))\n', [], { memoryMb: 200 })).toMatchObject({
        ok: false,
        error: { type: 'MemoryLimit' },
      });
      expect(await call1(p, 'def f():\n    while True:\n        pass\n', [], { timeoutMs: 300 })).toMatchObject({ ok: false, error: { type: 'Timeout' } });
      const refused = [
        'import os, socket, signal',
        'def f():',
        '    out = []',
        '    for attempt in (os.fork, socket.socket, lambda: os.kill(os.getppid(), signal.SIGKILL)):',
        '        try:',
        '            attempt()',
        "            out.append('allowed')",
        '        except PermissionError:',
        "            out.append('refused')",
        '    return out',
      ].join('\n');
      expect(value(await call1(p, refused))).toEqual(['refused', 'refused', 'refused']);
    });
  });

  it('a burst larger than the spare pool still succeeds, each call in its own process', async () => {
    await withPool({ spares: 1 }, async (p) => {
      const src = 'import os\ndef f(i):\n    return [i, os.getpid()]\n';
      const n = 24;
      const [one, ...many] = await Promise.all([
        p.runBatch({ source: src, entry: 'f', calls: Array.from({ length: n }, (_, i) => [String(i)]) }),
        ...Array.from({ length: 6 }, (_, k) => p.runBatch({ source: src, entry: 'f', calls: [[String(100 + k)]] })),
      ]);
      const rows = one!.results.map((r) => value(r) as [number, number]);
      expect(rows.map((r) => r[0])).toEqual(Array.from({ length: n }, (_, i) => i));
      const singles = many.map((b) => value(b.results[0]) as [number, number]);
      expect(singles.map((r) => r[0])).toEqual([100, 101, 102, 103, 104, 105]);
      expect(new Set([...rows, ...singles].map((r) => r[1])).size).toBe(n + 6);
    });
  });

  it('spares 0 (fork per call, the baseline) serves calls in fresh processes too', async () => {
    await withPool({ spares: 0 }, async (p) => {
      const src = 'import os\ndef f():\n    return os.getpid()\n';
      const pids = [];
      for (let i = 0; i < 3; i++) pids.push(value(await call1(p, src)));
      expect(new Set(pids).size).toBe(3);
      await sleep(50);
      expect(spares()).toEqual([]);
    });
  });

  it('no spare outlives its executor, whether it is closed or killed', async () => {
    const p = newPool({ spares: 4 });
    expect(await p.mode()).toBe('bwrap+seccomp');
    expect(await waitFor(() => spares().length === 4)).toBe(true);
    const first = spares().map((s) => s.host);
    const executor = nsPids();
    const exPid = [...executor].find(
      ([pid, x]) => x.args.includes('executor.py') && !x.args.startsWith('bwrap') && first.some((s) => executor.get(s)?.ppid === pid),
    )![0];
    process.kill(exPid, 'SIGKILL');
    expect(await waitFor(() => first.every((pid) => !alive(pid))), 'spares of a killed executor').toBe(true);
    expect(value(await call1(p, 'def f():\n    return 1\n'))).toBe(1); // the pool starts a new one
    expect(await waitFor(() => spares().length === 4)).toBe(true);
    const second = spares().map((s) => s.host);
    await p.close();
    expect(await waitFor(() => second.every((pid) => !alive(pid))), 'spares of a closed pool').toBe(true);
  });

  it('a pool with sandboxDir runs that copy of the Python side, with and without bubblewrap (how bench:sandbox compares versions)', async () => {
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-sandbox-copy-'));
    try {
      fs.cpSync(SANDBOX_SRC, copy, { recursive: true, filter: (src) => !src.includes('__pycache__') });
      const childPy = path.join(copy, 'child.py');
      const text = fs.readFileSync(childPy, 'utf8');
      expect(text).toContain('MODULE_NAME = "__pau_method__"');
      fs.writeFileSync(childPy, text.replace('MODULE_NAME = "__pau_method__"', 'MODULE_NAME = "__pau_copy__"'));
      const source = 'def f():\n    return __name__\n';
      for (const mode of ['bwrap', 'seccomp'] as const) {
        const fromCopy = newPool({ mode, sandboxDir: copy });
        const own = newPool({ mode });
        try {
          expect(value(await call1(fromCopy, source)), mode).toBe('__pau_copy__');
          expect(value(await call1(own, source)), mode).toBe('__pau_method__');
        } finally {
          await fromCopy.close();
          await own.close();
        }
      }
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });
});
