// `npm run bench:sandbox`: per-call latency (p50/p99) and calls/second of the sandbox for a trivial
// method and HumanEval/0 (has_close_elements on 100 floats), with and without coverage, beside the
// baseline of spawning `python3 -I -S` per call. Two shapes: single-call batches (one agent query per
// round trip, the latency an episode sees) and one batch of many calls (throughput).
import { spawnSync } from 'node:child_process';
import { env } from '../../config/env';
import { SandboxPool } from '../../activities/sandbox/index';
import { probePython } from '../../activities/sandbox/isolation';
import { formatTable } from '../../domain/report/table';

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

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN;
}

function progress(label: string, i: number, n: number): void {
  if (i % Math.max(1, Math.floor(n / 10)) === 0 || i === n) process.stderr.write(`\r  ${label}: ${i}/${n}   `);
}

interface Row {
  method: string;
  how: string;
  p50: number;
  p99: number;
  perSec: number;
}

async function main(): Promise<void> {
  const n = Number(process.env.PAU_BENCH_CALLS ?? 300);
  const python = env().PAU_PYTHON;
  // The real interpreter, not a version-manager shim (a shim adds ~80 ms per start; see the notes).
  const realPython = probePython(python).realExecutable;
  const pool = new SandboxPool({ size: 1 });
  const mode = await pool.mode();
  console.log(`sandbox benchmark: mode ${mode}, ${n} calls per row, python ${python}`);
  const rows: Row[] = [];
  for (const c of cases) {
    for (const coverage of [false, true]) {
      // warm-up
      await pool.runBatch({ source: c.source, entry: c.entry, calls: Array.from({ length: 20 }, () => c.call), coverage });
      const lat: number[] = [];
      const label = `${c.name}, ${coverage ? 'coverage' : 'no coverage'}, single-call batches`;
      const t0 = performance.now();
      for (let i = 0; i < n; i++) {
        const t = performance.now();
        const r = await pool.runBatch({ source: c.source, entry: c.entry, calls: [c.call], coverage });
        if (!r.results[0]?.ok) throw new Error(`benchmark call failed: ${JSON.stringify(r.results[0])}`);
        lat.push(performance.now() - t);
        progress(label, i + 1, n);
      }
      rows.push({
        method: c.name,
        how: `sandbox, 1 call/batch${coverage ? ', coverage' : ''}`,
        p50: pct(lat, 0.5),
        p99: pct(lat, 0.99),
        perSec: (n * 1000) / (performance.now() - t0),
      });
      // One batch of n calls: per-call time is the gap between consecutive results.
      const gaps: number[] = [];
      let last = performance.now();
      const t1 = last;
      await pool.runBatch(
        { source: c.source, entry: c.entry, calls: Array.from({ length: n }, () => c.call), coverage },
        {
          onCall: ({ index }) => {
            const now = performance.now();
            gaps.push(now - last);
            last = now;
            progress(`${c.name}, ${coverage ? 'coverage' : 'no coverage'}, one batch`, index + 1, n);
          },
        },
      );
      rows.push({
        method: c.name,
        how: `sandbox, ${n} calls/batch${coverage ? ', coverage' : ''}`,
        p50: pct(gaps, 0.5),
        p99: pct(gaps, 0.99),
        perSec: (n * 1000) / (performance.now() - t1),
      });
    }
    // Baseline: a new interpreter per call (no isolation at all).
    const m = Math.max(20, Math.floor(n / 5));
    const lat: number[] = [];
    const prog = `${c.source}\nimport ast\nprint(repr(${c.entry}(${c.call.join(', ')})))\n`;
    const t0 = performance.now();
    for (let i = 0; i < m; i++) {
      const t = performance.now();
      const r = spawnSync(realPython, ['-I', '-S', '-c', prog], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin' } });
      if (r.status !== 0) throw new Error(`baseline failed: ${r.stderr}`);
      lat.push(performance.now() - t);
      progress(`${c.name}, spawn python3 -I -S per call`, i + 1, m);
    }
    rows.push({
      method: c.name,
      how: 'baseline: spawn python3 -I -S per call (real binary)',
      p50: pct(lat, 0.5),
      p99: pct(lat, 0.99),
      perSec: (m * 1000) / (performance.now() - t0),
    });
  }
  process.stderr.write('\n');
  await pool.close();
  const baseline = new Map(rows.filter((r) => r.how.startsWith('baseline')).map((r) => [r.method, r.p50]));
  console.log(
    formatTable(
      ['method', 'how', 'p50 ms', 'p99 ms', 'calls/s', 'p50 speed-up vs spawn'],
      rows.map((r) => [r.method, r.how, r.p50.toFixed(3), r.p99.toFixed(3), r.perSec.toFixed(0), `${((baseline.get(r.method) ?? NaN) / r.p50).toFixed(1)}x`]),
    ),
  );
  const trivial = rows.find((r) => r.method === cases[0]!.name && r.how === 'sandbox, 1 call/batch');
  const base = baseline.get(cases[0]!.name) ?? NaN;
  if (trivial) {
    console.log(
      `\nsummary: trivial call, single-call batch (Node round trip included): p50 ${trivial.p50.toFixed(3)} ms, ` +
        `${(base / trivial.p50).toFixed(1)}x faster than spawning python3 per call (${base.toFixed(1)} ms); mode ${mode}.`,
    );
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`bench:sandbox: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
