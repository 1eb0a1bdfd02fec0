// `npm run bench:peer [-- --methods 30 --calls 10 --rounds 3 --max-samples 20 --window N]`: this project
// beside inspect_ai on the same items, interleaved, on this machine. Each item is a method
// `f(x, y) = x * k + y` probed `--calls` times (one call per turn) by an instant scripted model, then
// described: here the scripted `mock-steps` model through bench:episodes (its private stack: Temporal dev
// server, Postgres, workers, mock server; sandbox placement inline, the default window); there inspect_ai's
// react() agent with a `call_method` tool running `python3 -c` per call in its `local` sandbox and a
// scripted mockllm (scripts/bench/peer_harness.py). Each run is measured by peer_harness.py `measure`
// over its run phase only (stack start-up excluded): wall time, episodes/min, CPU of all its processes,
// peak summed RSS. Medians over `--rounds`, the order alternating per round. inspect_ai 0.3.285 lives in a
// benchmark-only virtualenv, $PAU_CACHE_DIR/venvs/peer-<hash>, installed from PyPI on first use. Not part
// of `npm test`.
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cacheDir, PROJECT_ROOT } from '../../config/env';
import { quantileSorted } from '../../domain/report/stats';

const INSPECT_REQUIREMENT = 'inspect_ai==0.3.285';
const HARNESS = path.join(PROJECT_ROOT, 'scripts', 'bench', 'peer_harness.py');

const { values: opts } = parseArgs({
  options: {
    methods: { type: 'string' },
    calls: { type: 'string' },
    rounds: { type: 'string' },
    'max-samples': { type: 'string' },
    window: { type: 'string' },
  },
});
const METHODS = Number(opts.methods ?? 30);
const CALLS = Number(opts.calls ?? 10);
const ROUNDS = Number(opts.rounds ?? 3);
const MAX_SAMPLES = Number(opts['max-samples'] ?? 20);

interface Measured {
  episodes: number;
  failed: number;
  wallS: number;
  cpuS: number;
  peakRssBytes: number;
}

/** The benchmark's virtualenv with inspect_ai, made once per requirement and Python (rename = complete). */
function inspectPython(): string {
  const py = process.env.PAU_PYTHON ?? 'python3';
  const version = spawnSync(py, ['-c', 'import sys; print(sys.version)'], { encoding: 'utf8' }).stdout.trim();
  const hash = crypto.createHash('sha256').update(`${INSPECT_REQUIREMENT}\n${version}`).digest('hex').slice(0, 12);
  const dir = path.join(cacheDir(), 'venvs', `peer-${hash}`);
  const bin = path.join(dir, 'bin', 'python');
  if (fs.existsSync(bin)) return bin;
  const tmp = `${dir}.tmp-${process.pid}`;
  console.log(`installing ${INSPECT_REQUIREMENT} into ${dir} (once) ...`);
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const run = (cmd: string, args: string[]) => {
    const r = spawnSync(cmd, args, { stdio: 'inherit' });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status})`);
  };
  try {
    run(py, ['-m', 'venv', tmp]);
    run(path.join(tmp, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', INSPECT_REQUIREMENT]);
    fs.renameSync(tmp, dir);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return bin;
}

/** Runs one harness under peer_harness.py `measure`; its `@@peer result` and `@@peer measured` lines. */
function measured(python: string, cmd: string[], env: NodeJS.ProcessEnv, log: string): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [HARNESS, 'measure', '--', ...cmd], { cwd: PROJECT_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = fs.createWriteStream(log);
    let text = '';
    child.stdout.on('data', (d: Buffer) => {
      text += d.toString();
      out.write(d);
    });
    child.stderr.pipe(out);
    child.on('error', reject);
    child.on('close', (code) => {
      out.end();
      const line = (tag: string) =>
        text
          .split('\n')
          .find((l) => l.startsWith(`@@peer ${tag} `))
          ?.slice(`@@peer ${tag} `.length);
      const result = line('result');
      const m = line('measured');
      if (code !== 0 || !result || !m) return reject(new Error(`${cmd.join(' ')} exited ${code} without its figures; see ${log}`));
      const r = JSON.parse(result) as { episodes: number; failed: number };
      const mm = JSON.parse(m) as { wallS: number; cpuS: number; peakRssBytes: number };
      resolve({ episodes: r.episodes, failed: r.failed, ...mm });
    });
  });
}

const median = (xs: number[]) =>
  quantileSorted(
    [...xs].sort((a, b) => a - b),
    0.5,
  );

async function main(): Promise<void> {
  const inspectPy = inspectPython();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-bench-peer-'));
  const items = Array.from({ length: METHODS }, (_, i) => ({
    id: `bench/m${String(i).padStart(4, '0')}`,
    code: `def f(x, y):\n    return x * ${i + 1} + y\n`,
    entry: 'f',
    probes: ['1, 2', '3, 4', '-1, 0', '10, 10'],
  }));
  const itemsFile = path.join(dir, 'items.json');
  fs.writeFileSync(itemsFile, JSON.stringify(items));
  const tsx = path.join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx');
  const harnesses = {
    'this project': (round: number) =>
      measured(
        'python3',
        [
          tsx,
          'scripts/bench/episodes.ts',
          '--methods',
          String(METHODS),
          '--calls',
          String(CALLS),
          '--marks',
          ...(opts.window ? ['--window', opts.window] : []),
        ],
        process.env,
        path.join(dir, `project-${round}.log`),
      ),
    inspect_ai: (round: number) =>
      measured(
        inspectPy,
        [inspectPy, HARNESS, 'inspect', '--items', itemsFile, '--calls', String(CALLS), '--max-samples', String(MAX_SAMPLES)],
        { ...process.env, PEER_LOG_DIR: path.join(dir, `inspect-logs-${round}`) },
        path.join(dir, `inspect-${round}.log`),
      ),
  };
  type Name = keyof typeof harnesses;
  const results: Record<Name, Measured[]> = { 'this project': [], inspect_ai: [] };
  const total = ROUNDS * 2;
  let n = 0;
  const t0 = Date.now();
  console.log(`bench:peer — ${METHODS} methods × ${CALLS} calls, ${ROUNDS} round(s), logs in ${dir}`);
  for (let round = 0; round < ROUNDS; round++) {
    const order: Name[] = round % 2 === 0 ? ['this project', 'inspect_ai'] : ['inspect_ai', 'this project'];
    for (const name of order) {
      const r = await harnesses[name](round);
      results[name].push(r);
      n++;
      const eta = ((Date.now() - t0) / n) * (total - n);
      console.log(
        `[${n}/${total}] ${name.padEnd(12)} ${r.episodes} episodes (${r.failed} failed) in ${r.wallS.toFixed(1)} s, CPU ${r.cpuS.toFixed(1)} s, peak RSS ${(r.peakRssBytes / 2 ** 20).toFixed(0)} MiB, load ${os.loadavg()[0]!.toFixed(1)}  ETA ${Math.round(eta / 1000)} s`,
      );
    }
  }
  const row = (name: Name) => {
    const rs = results[name];
    return {
      wall: median(rs.map((r) => r.wallS)),
      perMin: median(rs.map((r) => (r.episodes / r.wallS) * 60)),
      cpu: median(rs.map((r) => r.cpuS)),
      rss: median(rs.map((r) => r.peakRssBytes)) / 2 ** 20,
    };
  };
  const p = row('this project');
  const q = row('inspect_ai');
  console.log(
    `\nmedians of ${ROUNDS} round(s), ${os.cpus().length} cores, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} (shared machine)`,
  );
  console.log('|                      | this project | inspect_ai | this project ÷ inspect_ai |');
  console.log('|---|---|---|---|');
  console.log(`| wall time            | ${p.wall.toFixed(1)} s | ${q.wall.toFixed(1)} s | ${(p.wall / q.wall).toFixed(2)}× |`);
  console.log(`| episodes/min         | ${p.perMin.toFixed(1)} | ${q.perMin.toFixed(1)} | **${(p.perMin / q.perMin).toFixed(2)}×** |`);
  console.log(`| CPU, all processes   | ${p.cpu.toFixed(1)} s | ${q.cpu.toFixed(1)} s | ${(p.cpu / q.cpu).toFixed(2)}× |`);
  console.log(`| peak summed RSS      | ${p.rss.toFixed(0)} MiB | ${q.rss.toFixed(0)} MiB | ${(p.rss / q.rss).toFixed(2)}× |`);
  fs.rmSync(dir, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
