// Vitest global setup: a real Postgres cluster and a real Temporal dev server, private to this test run
// (free ports, a temporary state dir, password authentication as in `stack up`), migrated; stopped and
// removed afterwards. Test files reach them through the environment (DATABASE_URL with the password,
// TEMPORAL_ADDRESS), which forked test workers inherit.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runMigrations } from '../../db/migrate';
import { freePort } from '../../scripts/lib/processes';
import { clusterPassword, localDatabaseUrl, localPostgres, removeCluster, startPostgres, stopPostgres } from '../../scripts/stack/postgres';
import { localTemporal, startTemporal, stopTemporal, temporalCliPath } from '../../scripts/stack/temporal';

export default async function setup(): Promise<() => Promise<void>> {
  const started = Date.now();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-test-')); // 0700, like a state dir made by `stack up`
  process.env.PAU_STATE_DIR = dir; // the secrets module keeps the cluster's password under it
  const [pgPort, temporalPort] = [await freePort(), await freePort()];
  const pgStack = localPostgres(dir, pgPort);
  const password = clusterPassword(pgStack);
  const temporal = localTemporal(dir, temporalPort, 0, 'default', false);
  await Promise.all([startPostgres(pgStack, password), startTemporal(temporal, temporalCliPath(process.env.TEMPORAL_CLI_PATH))]);
  const databaseUrl = localDatabaseUrl(pgPort, password);
  await runMigrations(databaseUrl);
  Object.assign(process.env, {
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
    TEMPORAL_NAMESPACE: 'default',
    PAU_STATE_DIR: dir,
    PAU_TEST_TEMPORAL_CLI: temporalCliPath(process.env.TEMPORAL_CLI_PATH),
  });
  console.log(`test stack: postgres :${pgPort}, temporal :${temporalPort}, state ${dir} (${Date.now() - started} ms)`);
  return async () => {
    await Promise.allSettled([stopTemporal(temporal), stopPostgres(pgStack)]);
    if (!process.env.PAU_TEST_KEEP_STATE) {
      removeCluster(pgStack);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };
}
