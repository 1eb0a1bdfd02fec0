// The fork-server mechanism itself: the executor is a clean template that never runs or even holds a
// call's data, each call is a fresh pre-configured child, spares are used once, and the pool survives
// the death of any of these processes. Runs in the strongest mode here (bwrap+seccomp), asserted.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallResult, SandboxPool } from '../../activities/sandbox/index';
import { call1, newPool } from './helpers';
import { sleep } from '../../platform/process/processes';

let pool: SandboxPool;
beforeAll(async () => {
  pool = newPool();
  expect(await pool.mode()).toBe('bwrap+seccomp');
});
afterAll(async () => {
  await pool.close();
});

/** This test process's descendants with their parents (host pids). */
function tree(): { pid: number; ppid: number; args: string }[] {
  const all = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.trim().match(/^(\d+)\s+(\d+)\s+(.*)$/))
    .filter((m): m is RegExpMatchArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3]! }));
  const mine = new Set([process.pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of all) {
      if (mine.has(p.ppid) && !mine.has(p.pid)) {
        mine.add(p.pid);
        grew = true;
      }
    }
  }
  return all.filter((p) => p.pid !== process.pid && mine.has(p.pid) && !p.args.startsWith('ps '));
}

/** Host pids of the executors (python started by bubblewrap) and of their waiting spares. */
function sandboxProcesses(): { executors: number[]; spares: number[] } {
  const t = tree();
  const pythons = t.filter((p) => p.args.includes('executor.py') && !p.args.startsWith('bwrap'));
  const executors = pythons.filter((p) => !pythons.some((q) => q.pid === p.ppid)).map((p) => p.pid);
  const spares = pythons.filter((p) => executors.includes(p.ppid)).map((p) => p.pid);
  return { executors, spares };
}

async function untilOneSpare(): Promise<void> {
  for (let i = 0; i < 200 && sandboxProcesses().spares.length !== 1; i++) await sleep(10);
}

function value(r: CallResult | undefined): unknown {
  if (!r?.ok) throw new Error(`call failed: ${JSON.stringify(r)}`);
  return r.value;
}

// Searches this process's own writable memory for each needle. A needle is given reversed, so that
// the method's source and arguments never contain it; it is rebuilt byte by byte into a bytearray
// (no intermediate copies), and hits inside that bytearray or the read buffer do not count.
const MEMORY_SCAN = `
import ctypes

def scan(*reversed_needles):
    needles = []
    for rev in reversed_needles:
        b = bytearray(len(rev))
        for i in range(len(rev)):
            b[i] = ord(rev[len(rev) - 1 - i])
        needles.append(b)
    own = [(ctypes.addressof((ctypes.c_char * len(b)).from_buffer(b)), len(b)) for b in needles]
    chunk = 1 << 20
    buf = bytearray(chunk)
    own.append((ctypes.addressof((ctypes.c_char * chunk).from_buffer(buf)), chunk))
    found = []
    with open('/proc/self/maps') as f:
        regions = [line.split() for line in f]
    with open('/proc/self/mem', 'rb', buffering=0) as mem:
        for r in regions:
            if not r[1].startswith('rw') or (len(r) > 5 and r[5] in ('[vvar]', '[vsyscall]')):
                continue
            lo, hi = (int(x, 16) for x in r[0].split('-'))
            addr = lo
            while addr < hi:
                n = min(chunk, hi - addr)
                mem.seek(addr)
                try:
                    got = mem.readinto(memoryview(buf)[:n])
                except OSError:
                    got = 0
                for k, b in enumerate(needles):
                    at = buf.find(b, 0, got or 0)
                    while at >= 0:
                        hit = addr + at
                        if not any(o <= hit < o + size for o, size in own):
                            found.append(k)
                        at = buf.find(b, at + 1, got or 0)
                addr += n
    return sorted(set(found))
`;

describe('the executor is a clean template', () => {
  it('a call cannot open the memory of the executor, of a waiting spare or of bubblewrap init', async () => {
    const src = [
      'import os, time',
      'def f():',
      '    me = os.getpid()',
      '    for _ in range(200):  # wait for the spares to be listed',
      "        pids = [int(p) for p in os.listdir('/proc') if p.isdigit() and int(p) != me]",
      '        if len(pids) >= 3:',
      '            break',
      '        time.sleep(0.01)',
      '    opened = []',
      '    for p in pids:',
      "        for path in (f'/proc/{p}/mem', f'/proc/{p}/task/{p}/mem'):",
      '            try:',
      '                os.close(os.open(path, os.O_RDWR))',
      '                opened.append(path)',
      '            except OSError:',
      '                pass',
      '    return [sorted(pids), os.getppid(), opened]',
    ].join('\n');
    // Two spares, so that one is certainly waiting while the call runs.
    const p2 = newPool({ spares: 2 });
    let out: unknown;
    try {
      out = value(await call1(p2, src));
    } finally {
      await p2.close();
    }
    const [pids, ppid, opened] = out as [number[], number, string[]];
    expect(pids).toContain(1); // bubblewrap's init
    expect(pids).toContain(ppid); // the executor
    expect(pids.length, 'the executor, init and at least one waiting spare').toBeGreaterThanOrEqual(3);
    expect(opened).toEqual([]);
  });

  it('System V IPC and POSIX message queues are refused (they would outlive the call)', async () => {
    const src = [
      'import ctypes',
      'def f():',
      '    libc = ctypes.CDLL(None, use_errno=True)',
      '    out = []',
      '    for nr, args in ((68, (4242, 0o1600)), (29, (4343, 4096, 0o1600)), (64, (4444, 1, 0o1600)), (240, (b"/q", 0o100, 0o600, None))):',
      '        r = libc.syscall(nr, *args)',
      '        out.append([r, ctypes.get_errno()])',
      '    return out',
    ].join('\n');
    expect(value(await call1(pool, src))).toEqual([
      [-1, 1],
      [-1, 1],
      [-1, 1],
      [-1, 1],
    ]); // EPERM
  });

  it("no call's source, arguments, output or result is anywhere in a later call's memory", async () => {
    const tag = `${process.pid}x${Date.now()}`;
    const secrets = [`SRC-${tag}-source`, `ARG-${tag}-argument`, `RES-${tag}-result`, `OUT-${tag}-printed`];
    const [inSource, inArg, inResult, printed] = secrets;
    const leaky = `SECRET = '${inSource}'\ndef f(a):\n    print('${printed!.slice(0, 4)}' + '${printed!.slice(4)}')\n    return a.replace('ARG', 'RES').replace('argument', 'result')\n`;
    const r = await pool.runBatch({ source: leaky, entry: 'f', calls: [[JSON.stringify(inArg)], [JSON.stringify(inArg)]] });
    expect(r.results.map(value)).toEqual([inResult, inResult]);
    expect(r.results[0]!.stdout).toBe(`${printed}\n`);
    const rev = secrets.map((s) => JSON.stringify([...s].reverse().join('')));
    // Right after, and with the spares forked in the meantime: nothing of the first batch anywhere.
    for (let i = 0; i < 3; i++) {
      const found = await call1(pool, MEMORY_SCAN, rev, { timeoutMs: 20_000 }, 'scan');
      expect(value(found), `needles found: ${JSON.stringify(found)}`).toEqual([]);
    }
    // The scan itself works: a needle that is in memory (the method's own argument) is found.
    const control = `${MEMORY_SCAN}\ndef scan_self(x, rev):\n    return scan(rev)\n`;
    const seen = await call1(
      pool,
      control,
      [JSON.stringify(`ZZ-${tag}`), JSON.stringify([...`ZZ-${tag}`].reverse().join(''))],
      { timeoutMs: 20_000 },
      'scan_self',
    );
    expect(value(seen)).toEqual([0]);
  });

  it('every call is a fresh process forked from the executor; the method never runs in the executor', async () => {
    const src = 'import os\nAT_IMPORT = os.getpid()\ndef f(i):\n    return [AT_IMPORT, os.getpid(), os.getppid()]\n';
    const batch = await pool.runBatch({ source: src, entry: 'f', calls: Array.from({ length: 8 }, (_, i) => [String(i)]) });
    const singles = [];
    for (let i = 0; i < 4; i++) singles.push(await call1(pool, src, ['0']));
    const rows = [...batch.results, ...singles].map((r) => value(r) as [number, number, number]);
    for (const [atImport, pid] of rows) expect(atImport).toBe(pid);
    expect(new Set(rows.map((r) => r[1])).size).toBe(rows.length);
    const executor = rows[0]![2];
    expect(rows.every((r) => r[2] === executor && r[1] !== executor)).toBe(true);
    // Code that kills its own process at import kills the call's child, not the executor.
    const suicide = await call1(pool, 'import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\ndef f():\n    return 1\n');
    expect(suicide).toMatchObject({ ok: false, error: { type: 'SandboxError', message: 'the call was killed by SIGKILL' } });
    expect((value(await call1(pool, src, ['0'])) as number[])[2]).toBe(executor);
  });

  it('whatever a call leaves in the scratch dir is gone before the next call (locked dirs, symlinks, fifos)', async () => {
    const litter = [
      'import os',
      'def f():',
      "    os.makedirs('a/b/c')",
      "    open('a/b/c/x', 'w').write('x')",
      "    os.symlink('/usr', 'a/b/usr')",
      "    os.symlink('..', 'a/b/c/up')",
      "    os.symlink('a', 'loop')",
      "    os.mkfifo('fifo')",
      "    os.chmod('a/b/c', 0)",
      "    os.chmod('a/b', 0)",
      "    return sorted(os.listdir('.'))",
    ].join('\n');
    expect(value(await call1(pool, litter))).toEqual(['a', 'fifo', 'loop']);
    expect(value(await call1(pool, "import os\ndef f():\n    return os.listdir('/tmp')\n"))).toEqual([]);
    expect(value(await call1(pool, "import os\ndef f():\n    return os.path.isdir('/usr/bin')\n"))).toBe(true);
  });

  it('a forged, garbled or oversized result fails only its own call', async () => {
    const src = [
      'import os',
      'def f(kind):',
      "    if kind == 'garbage':",
      "        os.write(3, b'{not json')",
      '        os._exit(0)',
      "    if kind == 'shape':",
      '        os.write(3, b\'{"ok": true, "value": {"no": "such encoding"}}\')',
      '        os._exit(0)',
      "    if kind == 'huge':",
      "        os.write(3, b'x' * 400000)",
      '        os._exit(0)',
      "    if kind == 'frames':",
      "        os.write(1, bytes([4, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0]) + b'{}')",
      "    if kind == 'silent':",
      '        os._exit(3)',
      '    return kind',
    ].join('\n');
    const kinds = ['garbage', 'shape', 'huge', 'frames', 'silent', 'ok'];
    const r = await pool.runBatch({ source: src, entry: 'f', calls: kinds.map((k) => [JSON.stringify(k)]), limits: { resultBytes: 10_000 } });
    expect(r.results.map((x) => (x.ok ? x.value : `${x.error.type}: ${x.error.message}`))).toEqual([
      'SandboxError: the call wrote an unreadable result',
      'SandboxError: the call wrote an unreadable result',
      'ResultLimit: the call wrote a result over 10000 bytes',
      'frames',
      'SandboxError: the call exited without a result (status 3)',
      'ok',
    ]);
    expect(r.results[3]!.stdout.length).toBe(14); // its fake protocol frame is just its stdout
  });
});

describe('spares and recovery', () => {
  it('a spare killed while it waits is never handed a job', async () => {
    await call1(pool, 'def f():\n    return 1\n');
    await untilOneSpare(); // the replacement is forked once the executor has been idle a moment
    const { spares } = sandboxProcesses();
    expect(spares.length).toBe(1);
    for (const pid of spares) process.kill(pid, 'SIGKILL');
    await sleep(100);
    expect(await call1(pool, 'def f(x):\n    return x + 1\n', ['41'])).toMatchObject({ ok: true, value: 42 });
    await untilOneSpare();
    expect(sandboxProcesses().spares.length).toBe(1);
  });

  it('the pool recovers when the executor dies, idle or in the middle of a batch', async () => {
    const before = sandboxProcesses().executors;
    expect(before.length).toBe(1);
    process.kill(before[0]!, 'SIGKILL');
    await sleep(200);
    expect(await call1(pool, 'def f(x):\n    return x * 2\n', ['21'])).toMatchObject({ ok: true, value: 42 });
    const running = pool.runBatch({ source: 'import time\ndef f(i):\n    time.sleep(0.2)\n    return i\n', entry: 'f', calls: [['0'], ['1'], ['2'], ['3']] });
    await sleep(300);
    const now = sandboxProcesses().executors;
    expect(now.length).toBe(1);
    expect(now[0]).not.toBe(before[0]);
    process.kill(now[0]!, 'SIGKILL');
    const r = await running; // retried once on a fresh executor
    expect(r.results.map((x) => (x.ok ? x.value : x.error.type))).toEqual([0, 1, 2, 3]);
  });

  it('with more spares: at most that many wait, each is used once, and state still does not leak', async () => {
    const p = newPool({ spares: 3 });
    try {
      const tamper = 'import builtins, math\ndef f():\n    builtins.len = lambda x: 7\n    math.pi = 3\n    return len([])\n';
      const check = 'import math, os\ndef f():\n    return [len([1, 2]), math.pi > 3.1, os.getpid()]\n';
      const seen = new Set<number>();
      for (let i = 0; i < 5; i++) {
        expect(await call1(p, tamper)).toMatchObject({ ok: true, value: 7 });
        const [n, pi, pid] = value(await call1(p, check)) as [number, boolean, number];
        expect([n, pi]).toEqual([2, true]);
        seen.add(pid);
      }
      expect(seen.size).toBe(5);
      await sleep(200);
      const { executors, spares } = sandboxProcesses();
      expect(executors.length).toBe(2); // this pool's and the shared one of this file
      expect(spares.length).toBeLessThanOrEqual(1 + 3);
      expect(spares.length, JSON.stringify(tree().map((t) => [t.pid, t.ppid, t.args.slice(-40)]))).toBeGreaterThanOrEqual(3);
    } finally {
      await p.close();
    }
  });
});
