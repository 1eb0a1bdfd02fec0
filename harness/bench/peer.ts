// `npm run bench:peer [-- --methods 30 --calls 10 --rounds 3 --max-samples 20 --window N --only project|inspect_ai]`:
// this project beside inspect_ai on the same items, interleaved, on this machine. Each item is a method
// `f(x, y) = x * k + y` probed `--calls` times (one call per turn) by an instant scripted model, then
// described: here the scripted `mock-steps` model through bench:episodes (its private stack: Temporal dev
// server, Postgres, workers, mock server; sandbox placement inline, the default window); there inspect_ai's
// react() agent with a `call_method` tool running `python3 -c` per call in its `local` sandbox and a
// scripted mockllm (harness/bench/peer_harness.py). Each run is measured by peer_harness.py `measure`
// over its run phase only (stack start-up excluded): wall time, episodes/min, CPU of all its processes,
// peak summed RSS and PSS, and memory per part of the stack (Temporal, Postgres, Node, sandbox, ...).
// Medians over `--rounds`, the order alternating per round; `--only` runs one side (memory work).
// inspect_ai runs from the project's pinned inspect_ai virtualenv (platform/export/requirements.txt, made by
// scripts/setup.sh in $PAU_CACHE_DIR/venvs/inspect-<hash>). Not part of `npm test`.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { PROJECT_ROOT } from '../../config/env';
import { quantileSorted } from '../../domain/report/stats';
import { compiledPath, ensureBuilt } from '../../platform/build/entries';
import { inspectPython } from '../../platform/export/inspectVenv';

const HARNESS = path.join(PROJECT_ROOT, 'harness', 'bench', 'peer_harness.py');
const RUN_COMPILED = path.join(PROJECT_ROOT, 'scripts', 'runCompiled.sh');

const { values: opts } = parseArgs({
  options: {
    methods: { type: 'string' },
    calls: { type: 'string' },
    rounds: { type: 'string' },
    'max-samples': { type: 'string' },
    window: { type: 'string' },
    only: { type: 'string' },
  },
});
const METHODS = Number(opts.methods ?? 30);
const CALLS = Number(opts.calls ?? 10);
const ROUNDS = Number(opts.rounds ?? 3);
const MAX_SAMPLES = Number(opts['max-samples'] ?? 20);

const bytes = z.number().int().nonnegative();
/** One part of a stack (peer_harness.py PART_RULES): its own peaks, and its PSS when the summed PSS peaked. */
const partSchema = z.object({ peakRssBytes: bytes, peakPssBytes: bytes, pssAtPeakBytes: bytes, processes: z.number().int() });
/** peer_harness.py `measure`'s `@@peer measured` line. */
const measuredSchema = z.object({
  wallS: z.number(),
  cpuS: z.number(),
  peakRssBytes: bytes,
  peakPssBytes: bytes,
  pssSamples: z.number().int(),
  pssSampleS: z.number(),
  parts: z.record(z.string(), partSchema),
});
const resultSchema = z.object({ episodes: z.number().int(), failed: z.number().int() });
type Measured = z.infer<typeof measuredSchema> & z.infer<typeof resultSchema>;
/** The parts in the order printed (peer_harness.py PART_RULES, then "other"). */
const PART_ORDER = ['temporal', 'postgres', 'node', 'tsx launcher', 'esbuild', 'sandbox', 'inspect_ai', 'tool calls', 'other'];

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
      resolve({ ...resultSchema.parse(JSON.parse(result)), ...measuredSchema.parse(JSON.parse(m)) });
    });
  });
}

const mib = (b: number) => (b / 2 ** 20).toFixed(0);
const median = (xs: number[]) =>
  quantileSorted(
    [...xs].sort((a, b) => a - b),
    0.5,
  );

function printComparison(project: Measured[], inspect: Measured[]): void {
  const row = (rs: Measured[]) => ({
    wall: median(rs.map((r) => r.wallS)),
    perMin: median(rs.map((r) => (r.episodes / r.wallS) * 60)),
    cpu: median(rs.map((r) => r.cpuS)),
    rss: median(rs.map((r) => r.peakRssBytes)) / 2 ** 20,
    pss: median(rs.map((r) => r.peakPssBytes)) / 2 ** 20,
  });
  const p = row(project);
  const q = row(inspect);
  console.log('|                      | this project | inspect_ai | this project ÷ inspect_ai |');
  console.log('|---|---|---|---|');
  console.log(`| wall time            | ${p.wall.toFixed(1)} s | ${q.wall.toFixed(1)} s | ${(p.wall / q.wall).toFixed(2)}× |`);
  console.log(`| episodes/min         | ${p.perMin.toFixed(1)} | ${q.perMin.toFixed(1)} | **${(p.perMin / q.perMin).toFixed(2)}×** |`);
  console.log(`| CPU, all processes   | ${p.cpu.toFixed(1)} s | ${q.cpu.toFixed(1)} s | ${(p.cpu / q.cpu).toFixed(2)}× |`);
  console.log(`| peak summed RSS      | ${p.rss.toFixed(0)} MiB | ${q.rss.toFixed(0)} MiB | ${(p.rss / q.rss).toFixed(2)}× |`);
  console.log(`| peak summed PSS      | ${p.pss.toFixed(0)} MiB | ${q.pss.toFixed(0)} MiB | ${(p.pss / q.pss).toFixed(2)}× |`);
}

/** Memory per part of each side's stack (medians over the rounds), then the peak of the sum. */
function printMemory(sides: [string, Measured[]][]): void {
  console.log(
    '\nmemory by part, MiB: PSS splits a page shared by several processes (forks, Postgres shared buffers) among them, RSS counts it in each. ' +
      "A part's peaks are its own: parts peak at different times, so they add up to more than the peak of the sum; " +
      '"at the peak" is the part\'s PSS when the summed PSS peaked.',
  );
  console.log(`| part | ${sides.map(([name]) => `${name}: peak PSS | peak RSS | PSS at the peak | processes`).join(' | ')} |`);
  console.log(`|---|${sides.map(() => '---|---|---|---|').join('')}`);
  const seen = new Set(sides.flatMap(([, rs]) => rs.flatMap((r) => Object.keys(r.parts))));
  const parts = [...PART_ORDER.filter((p) => seen.has(p)), ...[...seen].filter((p) => !PART_ORDER.includes(p))];
  for (const part of parts) {
    const cells = sides.map(([, rs]) => {
      const of = (key: keyof z.infer<typeof partSchema>) => median(rs.map((r) => r.parts[part]?.[key] ?? 0));
      return of('processes') === 0 ? undefined : `${mib(of('peakPssBytes'))} | ${mib(of('peakRssBytes'))} | ${mib(of('pssAtPeakBytes'))} | ${of('processes')}`;
    });
    // Not printed: a part seen in fewer than half the rounds (tsx's esbuild service, now and then): its medians are 0.
    if (cells.some((c) => c !== undefined)) console.log(`| ${part} | ${cells.map((c) => c ?? ' |  |  | ').join(' | ')} |`);
  }
  const sums = sides.map(([, rs]) => [`**${mib(median(rs.map((r) => r.peakPssBytes)))}**`, mib(median(rs.map((r) => r.peakRssBytes))), '', ''].join(' | '));
  console.log(`| peak of the sum | ${sums.join(' | ')} |`);
  const samples = sides.map(
    ([name, rs]) => `${name} ${median(rs.map((r) => r.pssSamples))} PSS samples of ${(median(rs.map((r) => r.pssSampleS)) * 1000).toFixed(0)} ms`,
  );
  console.log(`(RSS sampled every 50 ms, PSS every 0.25 s or 10× its own cost, whichever is longer: ${samples.join(', ')})`);
}

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
  const build = await ensureBuilt();
  const harnesses = {
    'this project': (round: number) =>
      measured(
        'python3',
        [
          // As `npm run bench:episodes` runs it (package.json): the compiled entry through the launcher that sets
          // the memory settings (scripts/runCompiled.sh execs node, so the measured process is node itself).
          'bash',
          RUN_COMPILED,
          compiledPath(build.dir, 'harness/bench/episodes.ts'),
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
  const names: Name[] = opts.only === undefined ? ['this project', 'inspect_ai'] : [opts.only === 'project' ? 'this project' : (opts.only as Name)];
  if (!names.every((name) => name in harnesses)) throw new Error(`--only takes project or inspect_ai, not ${opts.only}`);
  const results: Record<Name, Measured[]> = { 'this project': [], inspect_ai: [] };
  const total = ROUNDS * names.length;
  let n = 0;
  const t0 = Date.now();
  console.log(`bench:peer — ${METHODS} methods × ${CALLS} calls, ${ROUNDS} round(s), logs in ${dir}`);
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? names : [...names].reverse();
    for (const name of order) {
      const r = await harnesses[name](round);
      results[name].push(r);
      n++;
      const eta = ((Date.now() - t0) / n) * (total - n);
      console.log(
        `[${n}/${total}] ${name.padEnd(12)} ${r.episodes} episodes (${r.failed} failed) in ${r.wallS.toFixed(1)} s, CPU ${r.cpuS.toFixed(1)} s, peak RSS ${mib(r.peakRssBytes)} MiB, PSS ${mib(r.peakPssBytes)} MiB, load ${os.loadavg()[0]!.toFixed(1)}  ETA ${Math.round(eta / 1000)} s`,
      );
    }
  }
  console.log(
    `\nmedians of ${ROUNDS} round(s), ${os.cpus().length} cores, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} (shared machine)`,
  );
  if (names.length === 2) printComparison(results['this project'], results.inspect_ai);
  printMemory(names.map((name) => [name, results[name]]));
  fs.rmSync(dir, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
