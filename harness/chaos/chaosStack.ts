// The chaos scripts' private stack: Postgres and a Temporal dev server in a temp dir (migrated), and the
// environment the workers it starts get. Ports are given (GRPO chaos: the session's own) or free ones.
// openChaosRig is the setup both scripts share on top of it: the stack, a database handle and a Temporal
// client on it, starters for the scripted model server and each queue's worker (supervised children), and
// the teardown; runChaosMain is their common exit.
import fs from 'node:fs';
import { Connection, type Client } from '@temporalio/client';
import { reloadEnv } from '../../config/env';
import { clientFor } from '../../config/temporal';
import { connect, type Db, type DbHandle } from '../../db/client';
import { runMigrations } from '../../db/migrate';
import { datasetMethods, datasets, methods } from '../../db/schema/datasets';
import { clusterPassword, localDatabaseUrl, localPostgres, removeCluster, startPostgres, stopPostgres } from '../../platform/stack/postgres';
import { localTemporal, startTemporal, stopTemporal, temporalCliPath } from '../../platform/stack/temporal';
import type { TaskQueueName } from '../../domain/temporal/queues';
import type { ChaosProcesses } from './chaosProcesses';

export interface ChaosPorts {
  pg: number;
  temporal: number;
  mock: number;
}

export async function startChaosStack(dir: string, ports: ChaosPorts, extraEnv: NodeJS.ProcessEnv = {}) {
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

export type ChaosStack = Awaited<ReturnType<typeof startChaosStack>>;

/** Each queue's worker entry point and the name its log and findings go under. */
const WORKERS: Record<TaskQueueName, { script: string; name: string }> = {
  pau: { script: 'workers/pau.ts', name: 'worker-pau' },
  'pau-sandbox': { script: 'workers/pau-sandbox.ts', name: 'worker-sandbox' },
  'pau-gpu': { script: 'workers/pau-gpu.ts', name: 'worker-gpu' },
};

export interface ChaosRig {
  stack: ChaosStack;
  env: NodeJS.ProcessEnv;
  dbh: DbHandle;
  client: Client;
  /** Starts the scripted model server on the rig's mock port; resolves once it listens. */
  startMock(): ReturnType<ChaosProcesses['spawnTs']>;
  /** Starts one worker process for `queue`; resolves once it is ready. */
  startWorker(queue: TaskQueueName): ReturnType<ChaosProcesses['spawnTs']>;
  /** Closes the connections, kills every child, runs the options' `cleanup`, stops the stack; removes the dir unless
   * PAU_CHAOS_KEEP. Also run on SIGINT/SIGTERM. */
  close(): Promise<void>;
}

export interface ChaosRigOptions {
  ports: ChaosPorts;
  /** Extra environment for the workers and this process. */
  extraEnv?: NodeJS.ProcessEnv;
  /** The scripted model server's latency per reply. */
  mockLatencyMs: number;
  /** Appended to the line that says where the stack is. */
  note?: string;
  /** Run by close() after the children are killed, before the stack stops (what the script started outside them). */
  cleanup?: () => void;
}

export async function openChaosRig(dir: string, log: (s: string) => void, procs: ChaosProcesses, opts: ChaosRigOptions): Promise<ChaosRig> {
  const { ports } = opts;
  const stack = await startChaosStack(dir, ports, opts.extraEnv);
  log(`private stack in ${dir}: postgres :${ports.pg}, temporal :${ports.temporal}, scripted model server :${ports.mock}${opts.note ?? ''}`);
  const dbh = connect(stack.databaseUrl, 3);
  const connection = await Connection.connect({ address: `127.0.0.1:${ports.temporal}` });
  const { env } = stack;
  // Killed by SIGINT/SIGTERM (Ctrl-C, a timeout), the script would skip its `finally` and leave the private
  // stack running: stop it the same way, then exit with the signal's code.
  let closing: Promise<void> | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    log(`${signal}: stopping the private stack`);
    // main() is still polling: its calls fail once the connections close and the servers stop; those
    // errors must not end the process before the stack is down.
    process.on('uncaughtException', () => undefined);
    process.on('unhandledRejection', () => undefined);
    void close().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  function close(): Promise<void> {
    closing ??= (async () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      await connection.close().catch(() => undefined);
      await dbh.close().catch(() => undefined);
      await procs.killAll();
      opts.cleanup?.();
      const keep = Boolean(process.env.PAU_CHAOS_KEEP);
      await stack.stop(keep);
      if (keep) log(`kept ${dir}`);
      else fs.rmSync(dir, { recursive: true, force: true });
    })();
    return closing;
  }
  return {
    stack,
    env,
    dbh,
    client: clientFor(connection, 'default'),
    startMock: () =>
      procs.spawnTs(
        'scripts/pau.ts',
        ['mock-llm', '--port', String(ports.mock), '--latency-ms', String(opts.mockLatencyMs)],
        env,
        'scripted mock model server',
        'mock-llm',
      ),
    startWorker: (queue) => procs.spawnTs(WORKERS[queue].script, [], env, 'ready', WORKERS[queue].name),
    close,
  };
}

/** Runs a chaos script's main and exits with its code; an error is printed and every child killed first. */
export function runChaosMain(name: string, main: () => Promise<number>, procs: ChaosProcesses): void {
  main().then(
    (code) => process.exit(code),
    async (err: unknown) => {
      console.error(`${name}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      await procs.killAll();
      process.exit(1);
    },
  );
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
