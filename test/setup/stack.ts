// Vitest global setup: a real Postgres cluster, a real Temporal dev server and the scripted mock model
// server, private to this test run (free ports, a temporary state dir, password authentication as in
// `stack up`), migrated; stopped and removed afterwards. Test files reach them through the environment
// (DATABASE_URL with the password, TEMPORAL_ADDRESS, PAU_MOCK_LLM_URL), which forked test workers inherit.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../config/env';
import { connect } from '../../db/client';
import { runMigrations } from '../../db/migrate';
import { dbMethodLookup, startMockServer } from '../../platform/models/mock/server';
import { freePort, retryOnPortCollision } from '../../platform/process/processes';
import { installModel } from '../../platform/models/local/install';
import { ensureRuntime } from '../../platform/models/local/runtime';
import { stopAllLocalServers } from '../../platform/models/local/server';
import { clusterPassword, localDatabaseUrl, localPostgres, removeCluster, startPostgres, stopPostgres } from '../../platform/stack/postgres';
import { localTemporal, startTemporal, stopTemporal, temporalCliPath } from '../../platform/stack/temporal';
import { BACKGROUND_RESULT_ENV, startTrainerPytestInBackground } from './trainerPytest';

export default async function setup(): Promise<() => Promise<void>> {
  const started = Date.now();
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
  const [pgStack, temporal] = await Promise.all([
    retryOnPortCollision('test Postgres', async () => {
      const p = localPostgres(dir, await freePort());
      await startPostgres(p, password);
      return p;
    }),
    retryOnPortCollision('test Temporal', async () => {
      const t = localTemporal(dir, await freePort(), 0, 'default', false);
      await startTemporal(t, temporalCliPath(process.env.TEMPORAL_CLI_PATH));
      return t;
    }),
  ]);
  const [pgPort, temporalPort] = [pgStack.port, temporal.port];
  const databaseUrl = localDatabaseUrl(pgPort, password);
  // Bound only when a test starts a local model server, minutes later: outside the ephemeral range (freePort).
  const modelPortBase = await freePort(3);
  await runMigrations(databaseUrl);
  await provisioned;
  // The scripted mock model server, as `stack up` runs it beside the workers (never inside them).
  const mockDb = connect(databaseUrl, 2);
  const mock = await startMockServer({ lookup: dbMethodLookup(() => mockDb.db) });
  Object.assign(process.env, {
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
    TEMPORAL_NAMESPACE: 'default',
    PAU_STATE_DIR: dir,
    PAU_TEST_TEMPORAL_CLI: temporalCliPath(process.env.TEMPORAL_CLI_PATH),
    // Local model servers of this run listen on their own ports (a developer's may run on the default ones).
    PAU_MODEL_PORT_BASE: String(modelPortBase),
    PAU_MOCK_LLM_URL: mock.url,
    // Checkpoint files fetched by this run's tests go with its state dir, not into the user's cache.
    PAU_CHECKPOINT_CACHE_DIR: path.join(dir, 'checkpoints'),
  });
  // The trainer's pytest needs none of the stack and is the longest file by far: in `npm test` it starts once the
  // stack is up (a failed start leaves no pytest behind) and runs beside the integration files;
  // test/training/pytest.test.ts (sorted last: test/setup/sequencer.ts) waits for its result and asserts on it.
  const pytest = process.env.PAU_TEST_TRAINER_BACKGROUND === '1' ? startTrainerPytestInBackground(dir) : undefined;
  if (pytest) process.env[BACKGROUND_RESULT_ENV] = pytest.resultFile;
  console.log(`test stack: postgres :${pgPort}, temporal :${temporalPort}, mock-llm :${mock.port}, state ${dir} (${Date.now() - started} ms)`);
  return async () => {
    await pytest?.stop(); // only still running when the run ended before the pytest file's test
    await mock.close();
    await mockDb.close();
    await stopAllLocalServers(dir).catch((err: unknown) => console.error('test stack: stopping local model servers:', err));
    await Promise.allSettled([stopTemporal(temporal), stopPostgres(pgStack)]);
    if (!process.env.PAU_TEST_KEEP_STATE) {
      removeCluster(pgStack);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };
}
