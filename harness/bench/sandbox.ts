// `npm run bench:sandbox`: per-call latency (p50/p99), calls/second and CPU per call of the sandbox for
// a trivial method and HumanEval/0 (has_close_elements on 100 floats), with and without coverage, side
// by side with spawning `python3 -I -S` per call (interleaved with the sandbox's single calls, so both see
// the same load). Shapes:
//   - 1 call/batch, back to back: one agent query per round trip, the next sent as soon as one returns;
//   - 1 call/batch, 20 ms apart: the same with a pause between calls (an agent's model turn), so a
//     configured spare is waiting when the call comes;
//   - fork per call (trivial method): the same two shapes on a second pool with no spares (`spares: 0`:
//     the configured template forks each call's child on the call's clock), interleaved call by call
//     with the pre-forked pool, so the three ways (pre-forked spare, fork per call, spawn) share the load;
//   - the default pool (2 executors on 2 cores), 1 caller, back to back: consecutive calls alternate
//     between the executors, so each has had a call's time to prepare its next spare;
//   - N calls/batch and 100 calls/batch: throughput of one executor over the batch API (one BATCH
//     message carries up to 64 calls, each still its own fresh child; per-call time = gap between
//     consecutive results, and wall / calls in the summary);
//   - the pool on all cores: 2 executors, 2 callers at once, with 1 and 2 spares per executor.
// CPU ms/call is the CPU time of every process involved (this Node process and the whole sandbox tree;
// for the baseline, the spawned interpreters), which load disturbs much less than wall time.
// PAU_BENCH_CALLS (default 300) sets N. PAU_BENCH_SANDBOX_DIR runs every pool on another copy of the
// Python side (a directory like sandbox/, e.g. an older executor.py beside today's other files), so two
// versions can be run in turn on the same machine minutes; unset, the project's sandbox/.
// PAU_BENCH_SANDBOX_VS=<dir> instead compares two versions in one process (A: PAU_BENCH_SANDBOX_DIR or
// sandbox/, B: that dir), round by round in alternating order (A B, B A, ...; PAU_BENCH_ROUNDS, default
// 8): per round and version 40 single calls 20 ms apart and 3 batches of 100, then per version the paced
// p50/p90, the batch's wall per call, and the CPU and page faults per call of its executor tree. Load
// moves both alike; run it with A = B once to see the noise.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { env } from '../../config/env';
import { SandboxPool } from '../../activities/sandbox/index';
import { probePython } from '../../platform/sandbox/isolation';
import { formatTable } from '../../domain/report/table';
import { sleep } from '../../platform/process/processes';

const TRIVIAL = 'def f(x):\n    return x + 1\n';
const HE0 = `from typing import List


def has_close_elements(numbers: List[float], threshold: float) -> bool:
    for idx, elem in enumerate(numbers):
        for idx2, elem2 in enumerate(numbers):
            if idx != idx2:
                distance = abs(elem - elem2)
                if distance < threshold:
                    return True

    return False
`;
const FLOATS = `[${Array.from({ length: 100 }, (_, i) => (i * 1.37).toFixed(2)).join(', ')}]`;
const cases = [
  { name: 'trivial x+1', source: TRIVIAL, entry: 'f', call: ['1'] },
  { name: 'HumanEval/0 (100 floats)', source: HE0, entry: 'has_close_elements', call: [FLOATS, '0.5'] },
];
type Case = (typeof cases)[number];

const CLK_TCK_MS = 10; // /proc times are in clock ticks of 1/100 s on Linux
const PACE_MS = 20; // the pause between paced calls: far shorter than any model turn
const BATCH_OF = 100; // the batch the summary sets beside a single call and spawn

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN;
}

function progress(label: string, i: number, n: number): void {
  if (i % Math.max(1, Math.floor(n / 10)) === 0 || i === n) process.stderr.write(`\r  ${label}: ${i}/${n}      `);
}

function loadavg(): string {
  return fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

/** The live child processes of pid (over all its threads). */
function children(pid: number): number[] {
  try {
    return fs
      .readdirSync(`/proc/${pid}/task`)
      .flatMap((t) => fs.readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
  } catch {
    return [];
  }
}

/** CPU ms of this process's descendants (alive ones, plus what they reaped), and of reaped children. */
function treeCpuMs(): { tree: number; reaped: number } {
  const stat = (pid: number): string[] | undefined => {
    try {
      return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ');
    } catch {
      return undefined;
    }
  };
  let tree = 0;
  const stack = children(process.pid);
  while (stack.length) {
    const pid = stack.pop()!;
    const f = stat(pid);
    if (f) tree += (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * CLK_TCK_MS;
    stack.push(...children(pid));
  }
  const self = stat(process.pid);
  return { tree, reaped: self ? (Number(self[13]) + Number(self[14])) * CLK_TCK_MS : 0 };
}

/** Memory of the sandbox processes under this one (executors, bubblewrap, spares; not tsx's esbuild).
 * RSS counts the pages forks share once per process; PSS splits them, so its sum is the real cost. */
function sandboxMemory(): string {
  const kb = (text: string, key: string): number => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(text)?.[1] ?? 0);
  let procs = 0;
  let rss = 0;
  let pss = 0;
  const stack = children(process.pid);
  while (stack.length) {
    const pid = stack.pop()!;
    try {
      const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      if (/^Name:\s+esbuild/m.test(status)) continue;
      procs++;
      rss += kb(status, 'VmRSS');
      pss += kb(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'), 'Pss');
    } catch {
      // exited meanwhile
    }
    stack.push(...children(pid));
  }
  return `${procs} processes, RSS ${(rss / 1024).toFixed(1)} MiB summed, PSS ${(pss / 1024).toFixed(1)} MiB`;
}

/** CPU ms of everything involved, from now until the returned function is called. */
function cpuMeter(): () => number {
  const c0 = process.cpuUsage();
  const t0 = treeCpuMs();
  return () => {
    const c = process.cpuUsage(c0);
    const t = treeCpuMs();
    return (c.user + c.system) / 1000 + Math.max(0, t.tree - t0.tree) + (t.reaped - t0.reaped);
  };
}

interface Row {
  method: string;
  how: string;
  p50: number;
  p90: number;
  p99: number;
  perSec: number;
  cpuMs: number;
}

function row(method: string, how: string, lat: number[], wallMs: number, cpuMs: number, calls = lat.length): Row {
  return { method, how, p50: pct(lat, 0.5), p90: pct(lat, 0.9), p99: pct(lat, 0.99), perSec: (calls * 1000) / wallMs, cpuMs: cpuMs / calls };
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

async function singleCalls(
  pool: SandboxPool,
  c: Case,
  coverage: boolean,
  n: number,
  gapMs: number,
  label: string,
  realPython?: string,
  forkPool?: SandboxPool,
): Promise<{ sandbox: number[]; wall: number; cpu: number; spawn: number[]; spawnWall: number; spawnCpu: number; fork: number[] }> {
  const lat: number[] = [];
  const spawn: number[] = [];
  const fork: number[] = [];
  let wall = 0;
  let spawnWall = 0;
  let spawnNodeUs = 0;
  const spawnEvery = 5; // one baseline spawn per 5 sandbox calls, interleaved
  const prog = `${c.source}\nprint(repr(${c.entry}(${c.call.join(', ')})))\n`;
  const c0 = process.cpuUsage();
  const t0 = treeCpuMs();
  for (let i = 0; i < n; i++) {
    if (gapMs) await sleep(gapMs);
    const t = performance.now();
    const r = await pool.runBatch({ source: c.source, entry: c.entry, calls: [c.call], coverage });
    const dt = performance.now() - t;
    if (!r.results[0]?.ok) throw new Error(`benchmark call failed: ${JSON.stringify(r.results[0])}`);
    lat.push(dt);
    wall += dt + gapMs;
    if (forkPool) {
      // Not counted in this row's CPU: measured for latency only (the CPU meter covers the whole tree).
      if (gapMs) await sleep(gapMs);
      const f = performance.now();
      const fr = await forkPool.runBatch({ source: c.source, entry: c.entry, calls: [c.call], coverage });
      if (!fr.results[0]?.ok) throw new Error(`fork-per-call benchmark call failed: ${JSON.stringify(fr.results[0])}`);
      fork.push(performance.now() - f);
    }
    if (realPython && i % spawnEvery === 0) {
      const u = process.cpuUsage();
      const s = performance.now();
      const b = spawnSync(realPython, ['-I', '-S', '-c', prog], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin' } });
      const ds = performance.now() - s;
      const du = process.cpuUsage(u);
      spawnNodeUs += du.user + du.system;
      if (b.status !== 0) throw new Error(`baseline failed: ${b.stderr}`);
      spawn.push(ds);
      spawnWall += ds;
    }
    progress(label, i + 1, n);
  }
  const c1 = process.cpuUsage(c0);
  const t1 = treeCpuMs();
  // The spawned interpreters are reaped by this process: their CPU is in its children's times.
  const spawnCpu = spawnNodeUs / 1000 + (t1.reaped - t0.reaped);
  const cpu = (c1.user + c1.system - spawnNodeUs) / 1000 + Math.max(0, t1.tree - t0.tree);
  return { sandbox: lat, wall, cpu, spawn, spawnWall, spawnCpu, fork };
}

async function oneBatch(pool: SandboxPool, c: Case, coverage: boolean, n: number, label: string): Promise<{ gaps: number[]; wall: number; cpu: number }> {
  const gaps: number[] = [];
  const meter = cpuMeter();
  const t0 = performance.now();
  let last = t0;
  await pool.runBatch(
    { source: c.source, entry: c.entry, calls: Array.from({ length: n }, () => c.call), coverage },
    {
      onCall: ({ index }) => {
        const now = performance.now();
        gaps.push(now - last);
        last = now;
        progress(label, index + 1, n);
      },
    },
  );
  return { gaps, wall: performance.now() - t0, cpu: meter() };
}

/** PAU_BENCH_SANDBOX_DIR as a pool option (unset: none, so the pools use the project's sandbox/). */
function sandboxDirOption(): { sandboxDir?: string } {
  const dir = process.env.PAU_BENCH_SANDBOX_DIR;
  if (dir === undefined || dir === '') return {};
  const abs = path.resolve(dir);
  if (!fs.existsSync(path.join(abs, 'executor.py'))) throw new Error(`PAU_BENCH_SANDBOX_DIR=${dir}: no executor.py in ${abs}`);
  return { sandboxDir: abs };
}

/** CPU ms and minor page faults of a process tree (live members, plus the children they reaped). */
function treeUsage(root: number): { cpu: number; faults: number } {
  let cpu = 0;
  let faults = 0;
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    try {
      const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      cpu += (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * CLK_TCK_MS;
      faults += Number(f[7]) + Number(f[8]);
    } catch {
      // exited meanwhile
    }
    stack.push(...children(pid));
  }
  return { cpu, faults };
}

/** PAU_BENCH_SANDBOX_VS: two versions of the Python side, interleaved in one process (see the top). */
async function versus(vsDir: string, dirOpt: { sandboxDir?: string }): Promise<void> {
  const b = path.resolve(vsDir);
  if (!fs.existsSync(path.join(b, 'executor.py'))) throw new Error(`PAU_BENCH_SANDBOX_VS=${vsDir}: no executor.py in ${b}`);
  const rounds = Number(process.env.PAU_BENCH_ROUNDS ?? 8);
  const c = cases[0]!;
  const names = [dirOpt.sandboxDir ?? 'sandbox/', b];
  const before = new Set(children(process.pid));
  const pools: SandboxPool[] = [];
  const roots: number[] = [];
  for (const opt of [dirOpt, { sandboxDir: b }]) {
    const pool = new SandboxPool({ size: 1, ...opt });
    console.log(`${opt.sandboxDir ?? 'sandbox/'}: mode ${await pool.mode()}`);
    await pool.runBatch({ source: c.source, entry: c.entry, calls: Array.from({ length: 30 }, () => c.call) }); // warm-up
    const root = children(process.pid).find((pid) => !before.has(pid) && !roots.includes(pid) && !/esbuild/.test(fs.readFileSync(`/proc/${pid}/comm`, 'utf8')));
    if (root === undefined) throw new Error('cannot find the executor process of the pool');
    pools.push(pool);
    roots.push(root);
  }
  const res = names.map(() => ({ paced: [] as number[], perCall: [] as number[], cpu: [] as number[], faults: [] as number[] }));
  console.log(`A = ${names[0]}, B = ${names[1]}; ${rounds} rounds, load average ${loadavg()}`);
  for (let r = 0; r < rounds; r++) {
    for (const i of r % 2 === 0 ? [0, 1] : [1, 0]) {
      const pool = pools[i]!;
      const x = res[i]!;
      for (let k = 0; k < 40; k++) {
        await sleep(PACE_MS);
        const t = performance.now();
        await pool.runBatch({ source: c.source, entry: c.entry, calls: [c.call] });
        x.paced.push(performance.now() - t);
      }
      for (let k = 0; k < 3; k++) {
        await sleep(50); // the pool's spare set up again, as before a batch in the main run
        const u0 = treeUsage(roots[i]!);
        const t = performance.now();
        await pool.runBatch({ source: c.source, entry: c.entry, calls: Array.from({ length: BATCH_OF }, () => c.call) });
        x.perCall.push((performance.now() - t) / BATCH_OF);
        await sleep(30); // the last call's child reaped
        const u1 = treeUsage(roots[i]!);
        x.cpu.push((u1.cpu - u0.cpu) / BATCH_OF);
        x.faults.push((u1.faults - u0.faults) / BATCH_OF);
      }
    }
    const last = (xs: number[], k: number) => xs.slice(-k);
    console.log(
      `round ${r + 1}, load ${loadavg().split(' ')[0]}: ` +
        res
          .map((x, i) => `${'AB'[i]} paced p50 ${pct(last(x.paced, 40), 0.5).toFixed(3)} ms, batch ${pct(last(x.perCall, 3), 0.5).toFixed(3)} ms/call`)
          .join(' | '),
    );
  }
  for (const p of pools) await p.close();
  console.log(
    formatTable(
      ['version', 'paced p50 ms', 'paced p90 ms', `batch of ${BATCH_OF}: ms/call (median, min)`, 'CPU ms/call', 'page faults/call'],
      res.map((x, i) => [
        `${'AB'[i]}: ${names[i]}`,
        pct(x.paced, 0.5).toFixed(3),
        pct(x.paced, 0.9).toFixed(3),
        `${pct(x.perCall, 0.5).toFixed(3)}, ${Math.min(...x.perCall).toFixed(3)}`,
        pct(x.cpu, 0.5).toFixed(2),
        pct(x.faults, 0.5).toFixed(0),
      ]),
    ),
  );
  console.log(`load average ${loadavg()} at the end (${os.cpus().length} CPUs).`);
}

async function main(): Promise<void> {
  const n = Number(process.env.PAU_BENCH_CALLS ?? 300);
  const dirOpt = sandboxDirOption();
  const vs = process.env.PAU_BENCH_SANDBOX_VS;
  if (vs) return versus(vs, dirOpt);
  const python = env().PAU_PYTHON;
  // The real interpreter, not a version-manager shim (a shim adds ~80 ms per start; see the notes).
  const realPython = probePython(python).realExecutable;
  const pool = new SandboxPool({ size: 1, ...dirOpt });
  const mode = await pool.mode();
  // The fork-per-call baseline: the same template, no spares (each call's child forked on its clock).
  const forkPool = new SandboxPool({ size: 1, spares: 0, ...dirOpt });
  await forkPool.mode();
  const load0 = loadavg();
  if (dirOpt.sandboxDir) console.log(`sandbox benchmark: Python side from ${dirOpt.sandboxDir} (PAU_BENCH_SANDBOX_DIR)`);
  console.log(`sandbox benchmark: mode ${mode}, ${n} calls per row, ${os.cpus().length} CPUs, python ${python}, load average ${load0}`);
  const rows: Row[] = [];
  const batchOf = new Map<string, { perCall: number; cpu: number }>();
  for (const c of cases) {
    let spawnLat: number[] = [];
    let spawnWall = 0;
    let spawnCpu = 0;
    for (const coverage of [false, true]) {
      const cov = coverage ? ', coverage' : '';
      await pool.runBatch({ source: c.source, entry: c.entry, calls: Array.from({ length: 20 }, () => c.call), coverage }); // warm-up
      const withFork = c === cases[0] && !coverage ? forkPool : undefined;
      if (withFork) await forkPool.runBatch({ source: c.source, entry: c.entry, calls: Array.from({ length: 20 }, () => c.call) });
      const s = await singleCalls(pool, c, coverage, n, 0, `${c.name}${cov}, 1 call/batch (+ spawn baseline)`, realPython, withFork);
      rows.push(row(c.name, `sandbox, 1 call/batch${cov}`, s.sandbox, s.wall, s.cpu));
      if (withFork) rows.push(row(c.name, 'fork per call (spares 0), 1 call/batch', s.fork, sum(s.fork), NaN));
      spawnLat = spawnLat.concat(s.spawn);
      spawnWall += s.spawnWall;
      spawnCpu += s.spawnCpu;
      const paced = await singleCalls(pool, c, coverage, Math.ceil(n / 2), PACE_MS, `${c.name}${cov}, 1 call/batch, ${PACE_MS} ms apart`, undefined, withFork);
      rows.push(row(c.name, `sandbox, 1 call/batch, ${PACE_MS} ms apart${cov}`, paced.sandbox, paced.wall, paced.cpu));
      if (withFork)
        rows.push(row(c.name, `fork per call (spares 0), 1 call/batch, ${PACE_MS} ms apart`, paced.fork, sum(paced.fork) + PACE_MS * paced.fork.length, NaN));
      const b = await oneBatch(pool, c, coverage, n, `${c.name}${cov}, one batch`);
      rows.push(row(c.name, `sandbox, ${n} calls/batch${cov}`, b.gaps, b.wall, b.cpu));
      if (!coverage) {
        const b100 = await oneBatch(pool, c, false, BATCH_OF, `${c.name}, batch of ${BATCH_OF}`);
        rows.push(row(c.name, `sandbox, ${BATCH_OF} calls/batch`, b100.gaps, b100.wall, b100.cpu));
        batchOf.set(c.name, { perCall: b100.wall / BATCH_OF, cpu: b100.cpu / BATCH_OF });
      }
    }
    rows.push(row(c.name, 'baseline: spawn python3 -I -S per call (real binary)', spawnLat, spawnWall, spawnCpu));
  }
  await forkPool.close();
  const memory = [`pool of 1 executor (1 spare), idle after the runs: ${sandboxMemory()}`];
  await pool.close();

  // The pool on all cores (trivial method, no coverage): two executors, one caller, then two at once.
  const c = cases[0]!;
  {
    const wide = new SandboxPool({ size: 2, ...dirOpt });
    await wide.mode();
    await Promise.all([0, 1].map(() => wide.runBatch({ source: c.source, entry: c.entry, calls: Array.from({ length: 20 }, () => c.call) })));
    const s = await singleCalls(wide, c, false, n, 0, 'default pool of 2, 1 caller');
    rows.push(row(c.name, 'default pool of 2 executors, 1 caller, 1 call/batch', s.sandbox, s.wall, s.cpu));
    memory.push(`default pool of 2 executors (1 spare each), idle after the runs: ${sandboxMemory()}`);
    await wide.close();
  }
  for (const spares of [1, 2]) {
    const wide = new SandboxPool({ size: 2, spares, ...dirOpt });
    await wide.mode();
    await Promise.all([0, 1].map(() => wide.runBatch({ source: c.source, entry: c.entry, calls: Array.from({ length: 20 }, () => c.call) })));
    let meter = cpuMeter();
    let t0 = performance.now();
    const per = Math.ceil(n / 2);
    const lats = await Promise.all(
      [0, 1].map(async (k) => {
        const lat: number[] = [];
        for (let i = 0; i < per; i++) {
          const t = performance.now();
          await wide.runBatch({ source: c.source, entry: c.entry, calls: [c.call] });
          lat.push(performance.now() - t);
          if (k === 0) progress(`pool of 2, ${spares} spare(s) each, 2 callers`, i + 1, per);
        }
        return lat;
      }),
    );
    rows.push(row(c.name, `pool of 2 executors, ${spares} spare(s) each, 2 callers, 1 call/batch`, lats.flat(), performance.now() - t0, meter()));
    meter = cpuMeter();
    t0 = performance.now();
    const batches = await Promise.all([0, 1].map(() => oneBatch(wide, c, false, n, `pool of 2, ${spares} spare(s) each, 2 batches`)));
    rows.push(
      row(
        c.name,
        `pool of 2 executors, ${spares} spare(s) each, 2 batches of ${n} at once`,
        batches.flatMap((x) => x.gaps),
        performance.now() - t0,
        meter(),
        2 * n,
      ),
    );
    await wide.close();
  }
  process.stderr.write('\n');

  const baseline = new Map(rows.filter((r) => r.how.startsWith('baseline')).map((r) => [r.method, r.p50]));
  console.log(
    formatTable(
      ['method', 'how', 'p50 ms', 'p90 ms', 'p99 ms', 'calls/s', 'CPU ms/call', 'p50 speed-up vs spawn'],
      rows.map((r) => [
        r.method,
        r.how,
        r.p50.toFixed(3),
        r.p90.toFixed(3),
        r.p99.toFixed(3),
        r.perSec.toFixed(0),
        Number.isNaN(r.cpuMs) ? '-' : r.cpuMs.toFixed(2),
        `${((baseline.get(r.method) ?? NaN) / r.p50).toFixed(1)}x`,
      ]),
    ),
  );
  const base = baseline.get(c.name) ?? NaN;
  for (const how of [
    'sandbox, 1 call/batch',
    `sandbox, 1 call/batch, ${PACE_MS} ms apart`,
    'fork per call (spares 0), 1 call/batch',
    `fork per call (spares 0), 1 call/batch, ${PACE_MS} ms apart`,
    'default pool of 2 executors, 1 caller, 1 call/batch',
  ]) {
    const r = rows.find((x) => x.method === c.name && x.how === how);
    if (!r) continue;
    const ok = r.p50 <= 1 && base / r.p50 >= 20;
    console.log(
      `\nsummary: trivial call, ${how.replace(/^sandbox, /, 'pre-forked spare, ')} (Node round trip included): p50 ${r.p50.toFixed(3)} ms, p90 ${r.p90.toFixed(3)} ms, ` +
        `${(base / r.p50).toFixed(1)}x faster than spawning python3 per call (${base.toFixed(1)} ms); ` +
        `target p50 <= 1 ms and >= 20x: ${ok ? 'met' : 'not met'}.`,
    );
  }
  for (const m of cases) {
    const paced = rows.find((x) => x.method === m.name && x.how === `sandbox, 1 call/batch, ${PACE_MS} ms apart`);
    const spawn = baseline.get(m.name) ?? NaN;
    const b = batchOf.get(m.name);
    const spawnCpu = rows.find((x) => x.method === m.name && x.how.startsWith('baseline'))?.cpuMs ?? NaN;
    if (!paced || !b) continue;
    console.log(
      `\nside by side, ${m.name}: single paced call p50 ${paced.p50.toFixed(3)} ms (CPU ${paced.cpuMs.toFixed(2)} ms) | ` +
        `batch of ${BATCH_OF}: ${b.perCall.toFixed(3)} ms per call, ${(1000 / b.perCall).toFixed(0)} calls/s (CPU ${b.cpu.toFixed(2)} ms/call) | ` +
        `spawn per call p50 ${spawn.toFixed(3)} ms (CPU ${spawnCpu.toFixed(2)} ms); spawn / single ${(spawn / paced.p50).toFixed(1)}x, spawn / batched ${(spawn / b.perCall).toFixed(1)}x.`,
    );
  }
  console.log(`\nmemory: ${memory.join('; ')}.`);
  console.log(`mode ${mode}; load average ${load0} at the start, ${loadavg()} at the end (${os.cpus().length} CPUs).`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`bench:sandbox: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
