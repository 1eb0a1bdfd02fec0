// `npm run bench:episodes [-- --methods 100 --calls 10 --window N --sandbox inline|queue --lock skip|take --codec on|off]`: how fast the episode machinery runs
// when the model answers at once (the scripted `mock-steps` policy: one call per turn, then submit).
// On a private, throwaway stack (Temporal dev server + Postgres on free ports) with in-process workers
// for `pau` and `pau-sandbox`. Reports episodes per minute and the orchestration overhead per agent step:
// the wall time of a step (one model turn + its sandbox batch, from one assistant step's row to the next)
// minus the model's latency and the method's own execution time — i.e. what Temporal, Postgres, the
// activity plumbing and the sandbox's process round trip cost per step.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values: opts } = parseArgs({
  options: {
    methods: { type: 'string' },
    calls: { type: 'string' },
    window: { type: 'string' },
    sandbox: { type: 'string' },
    lock: { type: 'string' },
    // `off`: without the payload codec (config/payloadCodec.ts) in this process's client and workers, to
    // measure what encrypting every payload costs (run it beside a default `on` run). Never a deployment setting.
    codec: { type: 'string' },
    // For bench:peer: `@@peer start|end|result` lines around the run (harness/bench/peer_harness.py measures between them).
    marks: { type: 'boolean' },
  },
});
const METHODS = Number(opts.methods ?? 100);
const CALLS = Number(opts.calls ?? 10);
/** Unset: the starter's default (defaultWindow(): scales with the cores). */
const WINDOW = opts.window === undefined ? undefined : Number(opts.window);
/** `inline` (default here: one host) or `queue`: where the method calls run (EpisodeInput.sandbox). */
const SANDBOX = opts.sandbox === 'queue' ? 'queue' : 'inline';
/**
 * `skip` (default): the workers here are the whole deployment, so PAU_LLM_MAX_CALLERS is their activity
 * slots and a model cap at or above it takes no advisory lock; `take`: always take the slot.
 */
const LOCK = opts.lock === 'take' ? 'take' : 'skip';
const CODEC = opts.codec === 'off' ? 'off' : 'on';

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN;
}

async function main(): Promise<void> {
  if (CODEC === 'off') (await import('../../config/payloadCodec')).disablePayloadCodecForBenchmark();
  const { freePort } = await import('../../platform/process/processes');
  const { clusterPassword, localDatabaseUrl, localPostgres, removeCluster, startPostgres, stopPostgres } = await import('../../platform/stack/postgres');
  const { localTemporal, startTemporal, stopTemporal, temporalCliPath } = await import('../../platform/stack/temporal');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-bench-episodes-'));
  process.env.PAU_STATE_DIR = dir; // the cluster's password lives under it
  const [pgPort, temporalPort] = [await freePort(), await freePort()];
  const pg = localPostgres(dir, pgPort);
  const password = clusterPassword(pg);
  const temporal = localTemporal(dir, temporalPort, 0, 'default', false);
  console.log(`private stack in ${dir} ...`);
  await Promise.all([startPostgres(pg, password), startTemporal(temporal, temporalCliPath(process.env.TEMPORAL_CLI_PATH))]);
  Object.assign(process.env, {
    DATABASE_URL: localDatabaseUrl(pgPort, password),
    TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
    PAU_STATE_DIR: dir,
  });
  if (LOCK === 'skip') process.env.PAU_LLM_MAX_CALLERS ??= process.env.PAU_WORKER_MAIN_CONCURRENCY ?? '50';
  else delete process.env.PAU_LLM_MAX_CALLERS;
  // The secrets above parsed the environment before DATABASE_URL and TEMPORAL_ADDRESS were set.
  (await import('../../config/env')).reloadEnv();
  try {
    await run();
  } finally {
    await Promise.allSettled([stopTemporal(temporal), stopPostgres(pg)]);
    removeCluster(pg);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function run(): Promise<void> {
  const { runMigrations } = await import('../../db/migrate');
  const { connect } = await import('../../db/client');
  const { connectClient } = await import('../../config/temporal');
  const { datasets, datasetMethods, methods } = await import('../../db/schema/datasets');
  const { episodes, steps } = await import('../../db/schema/runs');
  const { startWorkers } = await import('../../workers/runWorkers');
  const { createSandboxActivities } = await import('../../activities/sandbox/index');
  const { createQueueWorker } = await import('../../workers/createWorker');
  const { progressLine } = await import('../../scripts/client/bench');
  const { defaultWindow, startBenchmark } = await import('../../scripts/client/starters');
  const { runProgress } = await import('../../db/queries/runs');
  const { STEPS_POLICY_CALLS } = await import('../../platform/models/mock/policies');
  const { reloadEnv } = await import('../../config/env');
  const { queueSpecs } = await import('../../workers/queues');
  const { eq, asc } = await import('drizzle-orm');
  if (CALLS !== STEPS_POLICY_CALLS) console.warn(`note: the mock-steps policy makes ${STEPS_POLICY_CALLS} calls; --calls ${CALLS} only sets the budget`);

  const { dbMethodLookup, startMockServer } = await import('../../platform/models/mock/server');
  await runMigrations(process.env.DATABASE_URL);
  const h = connect(undefined, 4);
  const db = h.db;
  // The scripted model server, in this process as in the test setup (env() is read lazily, after this).
  const mock = await startMockServer({ lookup: dbMethodLookup(() => db) });
  process.env.PAU_MOCK_LLM_URL = mock.url;
  // The environment was parsed already (migrations): parse it again, or the default mock URL (maybe another
  // checkout's server, which knows none of these methods) would be used.
  reloadEnv();
  await db.insert(datasets).values({ name: 'bench-episodes', contentHash: 'bench', config: {}, status: 'ready' });
  for (let i = 0; i < METHODS; i++) {
    const id = `bench/m${String(i).padStart(4, '0')}`;
    await db.insert(methods).values({
      id,
      source: 'bench',
      sourceId: String(i),
      entryPoint: 'f',
      signature: 'def f(x, y):',
      code: `def f(x, y):\n    return x * ${i + 1} + y\n`,
      goldDescription: `Returns x times ${i + 1} plus y.`,
      probeInputs: ['1, 2', '3, 4', '-1, 0', '10, 10'],
      verdict: 'accepted',
    });
    await db.insert(datasetMethods).values({ datasetName: 'bench-episodes', methodId: id, split: 'test', position: i });
  }

  // Workers: `pau` (workflows + Postgres/LLM activities) and `pau-sandbox`, in this process.
  const main = await startWorkers(['pau'], () => undefined);
  const sandboxWorker = await createQueueWorker({
    taskQueue: 'pau-sandbox',
    activities: createSandboxActivities(),
    maxConcurrentActivities: queueSpecs()['pau-sandbox'].maxConcurrentActivities,
  });
  const sandboxRun = sandboxWorker.run();
  const client = await connectClient();
  const runId = `bench-episodes-${Date.now().toString(36)}`;
  if (opts.marks) console.log('@@peer start');
  const started = Date.now();
  const handle = await startBenchmark(client, runId, {
    dataset: 'bench-episodes',
    split: 'test',
    models: ['mock-steps'],
    settings: ['interactive'],
    samples: 1,
    ...(WINDOW !== undefined ? { window: WINDOW } : {}),
    sandbox: SANDBOX,
    budgets: { maxCalls: CALLS, maxTurns: CALLS + 5 },
  });
  let done = false;
  const result = handle.result().finally(() => (done = true));
  while (!done) {
    await Promise.race([result, new Promise((r) => setTimeout(r, 2000))]);
    const p = await runProgress(db, runId);
    if (p) process.stderr.write(`\r${progressLine(p, started)}`);
  }
  process.stderr.write('\n');
  const totals = (await result).totals;
  const wallMs = Date.now() - started;
  if (opts.marks) {
    console.log('@@peer end');
    console.log(`@@peer result ${JSON.stringify({ episodes: totals.done, failed: totals.failed, wallS: wallMs / 1000 })}`);
  }

  // Per-step timing from the rows: assistant step k is written when turn k's model call returns; the
  // next assistant row is written one sandbox batch + one model call later.
  const eps = await db.select({ id: episodes.id }).from(episodes).where(eq(episodes.runId, runId));
  const kinds = new Map<string, number>();
  for (const r of await db.select({ kind: steps.kind }).from(steps)) kinds.set(r.kind, (kinds.get(r.kind) ?? 0) + 1);
  console.log(`\nrun ${runId}: ${eps.length} episodes; steps by kind: ${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')}`);
  const overhead: number[] = [];
  const stepWall: number[] = [];
  for (const e of eps) {
    const rows = await db.select().from(steps).where(eq(steps.episodeId, e.id)).orderBy(asc(steps.idx));
    const assistants = rows.filter((r) => r.kind === 'assistant');
    for (let k = 1; k < assistants.length; k++) {
      const prev = assistants[k - 1]!;
      const cur = assistants[k]!;
      const wall = cur.createdAt.getTime() - prev.createdAt.getTime();
      const llmMs = cur.agentMessage?.latencyMs ?? 0;
      const execMs = rows.filter((r) => r.kind === 'call' && r.idx > prev.idx && r.idx < cur.idx).reduce((s, r) => s + (r.observation?.result?.ms ?? 0), 0);
      stepWall.push(wall);
      overhead.push(wall - llmMs - execMs);
    }
  }
  const llm = (await db.select().from(steps)).filter((r) => r.kind === 'assistant').map((r) => r.agentMessage?.latencyMs ?? 0);
  console.log(
    `\nbench:episodes — ${METHODS} methods × ${STEPS_POLICY_CALLS} calls (one per turn), scripted model answering at once, window ${WINDOW ?? `${defaultWindow()} (default)`}, sandbox ${SANDBOX}, payload codec ${CODEC}, model slot lock ${LOCK === 'skip' ? 'skipped (cap unreachable)' : 'taken'}, ${os.cpus().length} cores, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.log(
    `episodes: ${totals.done} (${totals.failed} failed) in ${(wallMs / 1000).toFixed(1)} s  →  ${((totals.done / wallMs) * 60_000).toFixed(1)} episodes/min`,
  );
  console.log(`agent steps measured: ${overhead.length}`);
  console.log(`step wall time        p50 ${pct(stepWall, 0.5).toFixed(0)} ms   p99 ${pct(stepWall, 0.99).toFixed(0)} ms`);
  console.log(
    `orchestration overhead p50 ${pct(overhead, 0.5).toFixed(0)} ms   p99 ${pct(overhead, 0.99).toFixed(0)} ms   (step wall − model latency − method execution)`,
  );
  console.log(`scripted model latency p50 ${pct(llm, 0.5).toFixed(0)} ms   p99 ${pct(llm, 0.99).toFixed(0)} ms`);

  sandboxWorker.shutdown();
  await sandboxRun;
  await main.shutdown();
  await client.connection.close();
  await (await import('../../activities/llm/concurrency')).closeSlotPool();
  await mock.close();
  await h.close();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
