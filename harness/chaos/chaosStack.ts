// The chaos scripts' private stack: Postgres and a Temporal dev server in a temp dir (migrated), and the
// environment the workers it starts get. Ports are given (GRPO chaos: the session's own) or free ones.
import { reloadEnv } from '../../config/env';
import type { Db } from '../../db/client';
import { runMigrations } from '../../db/migrate';
import { datasetMethods, datasets, methods } from '../../db/schema/index';
import { clusterPassword, localDatabaseUrl, localPostgres, removeCluster, startPostgres, stopPostgres } from '../../platform/stack/postgres';
import { localTemporal, startTemporal, stopTemporal, temporalCliPath } from '../../platform/stack/temporal';

export async function startChaosStack(dir: string, ports: { pg: number; temporal: number; mock: number }, extraEnv: NodeJS.ProcessEnv = {}) {
  process.env.PAU_STATE_DIR = dir;
  // The caller may have read the environment already (installing the models does): read it again, so the
  // secrets and local servers go under this state dir and not the checkout's .data/.
  reloadEnv();
  const pg = localPostgres(dir, ports.pg);
  const password = clusterPassword(pg);
  const temporal = localTemporal(dir, ports.temporal, 0, 'default', false);
  const cli = temporalCliPath(process.env.TEMPORAL_CLI_PATH);
  await Promise.all([startPostgres(pg, password), startTemporal(temporal, cli)]);
  const databaseUrl = localDatabaseUrl(ports.pg, password);
  await runMigrations(databaseUrl);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: `127.0.0.1:${ports.temporal}`,
    TEMPORAL_NAMESPACE: 'default',
    PAU_STATE_DIR: dir,
    PAU_MOCK_LLM_URL: `http://127.0.0.1:${ports.mock}/v1`,
    LOG_LEVEL: 'ERROR',
    ...extraEnv,
  };
  Object.assign(process.env, env);
  reloadEnv();
  return {
    pg,
    password,
    temporal,
    cli,
    databaseUrl,
    env,
    async stop(keep: boolean) {
      await Promise.allSettled([stopTemporal(temporal), stopPostgres(pg)]);
      if (!keep) removeCluster(pg);
    },
  };
}

/** `count` fixture methods (add / safe_div, with gold descriptions) in dataset `name`, split `split`. */
export async function insertChaosMethods(d: Db, name: string, split: 'train' | 'test', count: number): Promise<void> {
  await d
    .insert(datasets)
    .values({ name, contentHash: `${name}:fixture`, config: { fixture: true }, status: 'ready' })
    .onConflictDoNothing();
  const bodies = [
    { entry: 'add', code: 'def add(a, b):\n    return a + b\n', gold: 'Returns the sum of a and b.', probes: ['1, 2', '-3, 3', "'ab', 'cd'"] },
    {
      entry: 'safe_div',
      code: "def safe_div(a, b):\n    if b == 0:\n        raise ValueError('division by zero')\n    return a // b\n",
      gold: 'Floor-divides a by b; raises ValueError when b is 0.',
      probes: ['7, 2', '1, 0', '-7, 2'],
    },
  ];
  for (let i = 0; i < count; i++) {
    const b = bodies[i % bodies.length]!;
    const id = `${name}/${b.entry}_${String(i).padStart(3, '0')}`;
    await d
      .insert(methods)
      .values({
        id,
        source: 'fixture',
        sourceId: id.split('/')[1]!,
        entryPoint: b.entry,
        signature: b.code.split('\n')[0]!,
        code: b.code,
        goldDescription: b.gold,
        probeInputs: b.probes,
        heldoutInputs: [],
        verdict: 'accepted',
      })
      .onConflictDoNothing();
    await d.insert(datasetMethods).values({ datasetName: name, methodId: id, split, position: i }).onConflictDoNothing();
  }
}
