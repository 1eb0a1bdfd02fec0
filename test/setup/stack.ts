// Vitest global setup: a real Postgres cluster, a real Temporal dev server and the scripted mock model
// server, private to this test run (free ports, a temporary state dir, password authentication as in
// `stack up`), migrated; stopped and removed afterwards. Test files reach them through the environment
// (DATABASE_URL with the password, TEMPORAL_ADDRESS, PAU_MOCK_LLM_URL), which forked test workers inherit.
// Integration files run PAU_TEST_INTEGRATION_WORKERS at once: each worker slot gets its own namespace, database,
// mock server, model ports and state dir on these servers (test/setup/workerSlots.ts), in PAU_TEST_SLOTS.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { PROJECT_ROOT } from '../../config/env';
import { readOrCreateSecret } from '../../config/secrets';
import { connect } from '../../db/client';
import { runMigrations } from '../../db/migrate';
import { LOCAL_MODELS } from '../../domain/llm/localModels';
import { dbMethodLookup, startMockServer } from '../../platform/models/mock/server';
import { freePort, retryOnPortCollision } from '../../platform/process/processes';
import { installModel } from '../../platform/models/local/install';
import { ensureRuntime } from '../../platform/models/local/runtime';
import { stopAllLocalServers } from '../../platform/models/local/server';
import { clusterPassword, localDatabaseUrl, localPostgres, removeCluster, startPostgres, stopPostgres } from '../../platform/stack/postgres';
import { localTemporal, startTemporal, stopTemporal, temporalCliPath } from '../../platform/stack/temporal';
import { BACKGROUND_RESULT_ENV, startTrainerPytestInBackground } from './trainerPytest';
import { integrationWorkers, SLOT_LOCKS_ENV, SLOTS_ENV, slotCount, type SlotEnv, slotDatabase, slotNamespace } from './workerSlots';

type Teardown = () => Promise<void>;

// Both integration projects (vitest.config.ts: the serial files and the parallel ones) name this global setup, and
// vitest runs a project's global setup once per project, in one process: the first call starts the stack, the
// others share it, and the last teardown stops it.
interface SharedStack {
  users: number;
  started: Promise<Teardown>;
}
const SHARED = '__pauTestStack';
const holder = globalThis as typeof globalThis & { [SHARED]?: SharedStack };

export default async function setup(): Promise<Teardown> {
  let shared = holder[SHARED];
  if (!shared) {
    shared = { users: 0, started: startStack() };
    holder[SHARED] = shared;
  }
  shared.users += 1;
  const stop = await shared.started;
  return async () => {
    shared.users -= 1;
    if (shared.users > 0) return;
    delete holder[SHARED];
    await stop();
  };
}

/** `CREATE DATABASE … TEMPLATE`, retried while the template's last session (the migration's) is still closing. */
async function cloneDatabase(adminUrl: string, template: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await client.query(`create database "${name}" template "${template}"`);
        return;
      } catch (err) {
        if (attempt >= 50 || !/being accessed by other users/.test(String(err))) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } finally {
    await client.end();
  }
}

async function startStack(): Promise<Teardown> {
  const started = Date.now();
  const workers = integrationWorkers();
  const slotTotal = slotCount(workers);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-test-')); // 0700, like a state dir made by `stack up`
  process.env.PAU_STATE_DIR = dir; // the secrets module keeps the cluster's password under it
  // Every test process encrypts Temporal payloads with the committed test key (config/payloadCodec.ts), so
  // a history a test records (PAU_RECORD_HISTORIES=1) replays in test/replay; plain payloads are refused
  // from now on, as on a stack whose key was just made.
  process.env.PAU_TEMPORAL_CODEC_KEY = fs.readFileSync(path.join(PROJECT_ROOT, 'test', 'fixtures', 'codec-test-key.txt'), 'utf8').trim();
  process.env.PAU_TEMPORAL_CODEC_CUTOVER = new Date().toISOString();
  const password = clusterPassword(localPostgres(dir, 0));
  // Neither server can listen on port 0 and report its port: each starts on one freePort chose, and again on
  // another should a program take that one first.
  // The local models the tests' turns use, provisioned as `stack up` does (a model turn never installs one):
  // a cheap check when they are in the shared cache, a download on a fresh machine.
  const provisioned = Promise.all([installModel('smollm2-135m'), installModel('qwen2.5-coder-0.5b'), ensureRuntime()]);
  const servers = await Promise.allSettled([
    retryOnPortCollision('test Postgres', async () => {
      const p = localPostgres(dir, await freePort());
      await startPostgres(p, password);
      return p;
    }),
    retryOnPortCollision('test Temporal', async () => {
      const extra = Array.from({ length: slotTotal - 1 }, (_, i) => slotNamespace(i + 2));
      const t = localTemporal(dir, await freePort(), 0, slotNamespace(1), false, extra);
      await startTemporal(t, temporalCliPath(process.env.TEMPORAL_CLI_PATH));
      return t;
    }),
  ]);
  // One that failed (no Temporal CLI, a port lost twice) leaves no other one running: vitest runs no teardown
  // for a setup that threw, and a cluster left behind would outlive the run.
  if (servers[0].status === 'rejected' || servers[1].status === 'rejected') {
    await Promise.allSettled([
      servers[0].status === 'fulfilled' ? stopPostgres(servers[0].value) : Promise.resolve(),
      servers[1].status === 'fulfilled' ? stopTemporal(servers[1].value) : Promise.resolve(),
    ]);
    throw servers[0].status === 'rejected' ? servers[0].reason : (servers[1] as PromiseRejectedResult).reason;
  }
  const [pgStack, temporal] = [servers[0].value, servers[1].value];
  const [pgPort, temporalPort] = [pgStack.port, temporal.port];
  const slotUrl = (k: number) => localDatabaseUrl(pgPort, password, slotDatabase(k));
  const databaseUrl = slotUrl(1);
  // Bound only when a test starts a local model server, minutes later: outside the ephemeral range (freePort).
  // One port per catalogue model (config/models.ts builtinLocalEntry), a range per slot.
  const modelPorts = LOCAL_MODELS.length;
  const modelPortBase = await freePort(modelPorts * slotTotal);
  await runMigrations(databaseUrl);
  // Each further slot's database is the migrated one copied (a template may have no open session: before the
  // mock server connects).
  for (let k = 2; k <= slotTotal; k++) await cloneDatabase(localDatabaseUrl(pgPort, password, 'postgres'), slotDatabase(1), slotDatabase(k));
  await provisioned;
  // Each slot's state dir holds a copy of the run's secrets (the cluster's password, the model servers' key, which
  // the mock servers below check), so a slot's local model servers answer the key its processes send.
  readOrCreateSecret('model-server-key');
  const slotDir = (k: number) => (k === 1 ? dir : path.join(dir, `slot-${k}`));
  for (let k = 2; k <= slotTotal; k++) {
    fs.mkdirSync(slotDir(k), { mode: 0o700 });
    fs.cpSync(path.join(dir, 'secrets'), path.join(slotDir(k), 'secrets'), { recursive: true });
  }
  // The scripted mock model server, as `stack up` runs it beside the workers (never inside them); one per slot,
  // since it looks the scripted methods up in the slot's database.
  const mocks = await Promise.all(
    Array.from({ length: slotTotal }, async (_, i) => {
      const mockDb = connect(slotUrl(i + 1), 2);
      const mock = await startMockServer({ lookup: dbMethodLookup(() => mockDb.db) });
      return { mock, mockDb };
    }),
  );
  const slots: SlotEnv[] = mocks.map(({ mock }, i) => ({
    DATABASE_URL: slotUrl(i + 1),
    TEMPORAL_NAMESPACE: slotNamespace(i + 1),
    PAU_MOCK_LLM_URL: mock.url,
    // Local model servers of this run listen on their own ports (a developer's may run on the default ones).
    PAU_MODEL_PORT_BASE: String(modelPortBase + i * modelPorts),
    PAU_STATE_DIR: slotDir(i + 1),
    // Checkpoint files fetched by this run's tests go with its state dir, not into the user's cache.
    PAU_CHECKPOINT_CACHE_DIR: path.join(slotDir(i + 1), 'checkpoints'),
  }));
  // The main process's environment (what a file run without test/setup/useWorkerSlot.ts would see) is slot 1's.
  Object.assign(process.env, {
    ...slots[0],
    TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
    PAU_TEST_TEMPORAL_CLI: temporalCliPath(process.env.TEMPORAL_CLI_PATH),
    [SLOTS_ENV]: JSON.stringify(slots),
    // Each file's process claims its slot here (test/setup/slotClaim.ts).
    [SLOT_LOCKS_ENV]: path.join(dir, 'slot-locks'),
  });
  // The trainer's pytest needs none of the stack and is the longest file by far: in `npm test` it starts once the
  // stack is up (a failed start leaves no pytest behind) and runs beside the integration files;
  // test/training/pytest.test.ts (sorted last: vitest.config.ts) waits for its result and asserts on it.
  const pytest = process.env.PAU_TEST_TRAINER_BACKGROUND === '1' ? startTrainerPytestInBackground(dir) : undefined;
  if (pytest) process.env[BACKGROUND_RESULT_ENV] = pytest.resultFile;
  const mockPorts = mocks.map(({ mock }) => `:${mock.port}`).join(' ');
  console.log(
    `test stack: postgres :${pgPort}, temporal :${temporalPort}, mock-llm ${mockPorts}, state ${dir}, ${workers} integration worker${workers === 1 ? '' : 's'} on ${slotTotal} slots (${Date.now() - started} ms)`,
  );
  return async () => {
    await pytest?.stop(); // only still running when the run ended before the pytest file's test
    for (const { mock, mockDb } of mocks) {
      await mock.close();
      await mockDb.close();
    }
    for (const slot of slots)
      await stopAllLocalServers(slot.PAU_STATE_DIR).catch((err: unknown) => console.error('test stack: stopping local model servers:', err));
    await Promise.allSettled([stopTemporal(temporal), stopPostgres(pgStack)]);
    if (!process.env.PAU_TEST_KEEP_STATE) {
      removeCluster(pgStack);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };
}
