// The local Temporal dev server from the `temporal` CLI: state in a SQLite file, Web UI, search
// attributes registered at start.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { PROJECT_ROOT } from '../../config/env';
import { SEARCH_ATTRIBUTE_NAMES } from '../../domain/temporal/searchAttributes';
import { portOpen, runningPid, spawnDetached, stopPidFile, waitFor, withPrivateUmask } from '../process/processes';

export interface LocalTemporal {
  stateDir: string;
  port: number;
  uiPort: number;
  namespace: string;
  /** More namespaces the server creates at start, each with the search attributes (tests: one per vitest worker). */
  extraNamespaces: string[];
  /** false: no Web UI (tests). */
  ui: boolean;
  dbFile: string;
  pidFile: string;
  logFile: string;
}

export function localTemporal(stateDir: string, port: number, uiPort: number, namespace: string, ui = true, extraNamespaces: string[] = []): LocalTemporal {
  return {
    stateDir,
    port,
    uiPort,
    namespace,
    extraNamespaces,
    ui,
    dbFile: path.join(stateDir, 'temporal.db'),
    pidFile: path.join(stateDir, 'temporal.pid'),
    logFile: path.join(stateDir, 'logs', 'temporal.log'),
  };
}

/** TEMPORAL_CLI_PATH, else `temporal` on PATH, else the copy scripts/setup.sh installed. */
export function temporalCliPath(explicit?: string): string {
  if (explicit) return explicit;
  try {
    const found = execFileSync('sh', ['-c', 'command -v temporal'], { encoding: 'utf8' }).trim();
    if (found) return found;
  } catch {
    /* not on PATH */
  }
  const local = path.join(PROJECT_ROOT, '.tools', 'temporal', 'bin', 'temporal');
  if (fs.existsSync(local)) return local;
  throw new Error('Temporal CLI not found: run `npm run setup`, put `temporal` on PATH, or set TEMPORAL_CLI_PATH');
}

export async function temporalReady(address: string, namespace: string): Promise<boolean> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address, connectTimeout: 1000 });
    await connection.workflowService.describeNamespace({ namespace });
    return true;
  } catch {
    return false;
  } finally {
    await connection?.close().catch(() => undefined);
  }
}

/**
 * The dev server's Go heap kept smaller (unless set in the environment): a GC at 50% growth instead of 100%.
 * No soft limit (GOMEMLIMIT): once a long-lived server's heap outgrew a 96 MiB limit, Go collected almost
 * without pause, up to half the cores (16 CPU-minutes in a 30-minute test run, 2026-12-02, 2 cores), while the
 * limit saved 3 MiB of PSS in bench:peer (docs/sandbox.md, "Memory beside inspect_ai").
 */
const GO_MEMORY = { GOGC: '50' };

export async function startTemporal(t: LocalTemporal, cliPath: string): Promise<'started' | 'already running'> {
  const address = `127.0.0.1:${t.port}`;
  const allReady = async () => {
    for (const ns of [t.namespace, ...t.extraNamespaces]) if (!(await temporalReady(address, ns))) return false;
    return true;
  };
  if (runningPid(t.pidFile) !== undefined && (await allReady())) return 'already running';
  if (await portOpen(t.port)) {
    throw new Error(`port ${t.port} is taken by another program; set PAU_TEMPORAL_PORT to a free port or TEMPORAL_ADDRESS to use that server`);
  }
  fs.mkdirSync(t.stateDir, { recursive: true, mode: 0o700 });
  const args = [
    'server',
    'start-dev',
    '--db-filename',
    t.dbFile,
    '--ip',
    '127.0.0.1',
    '--port',
    String(t.port),
    ...[t.namespace, ...t.extraNamespaces].flatMap((ns) => ['--namespace', ns]),
    '--log-level',
    'warn',
    ...SEARCH_ATTRIBUTE_NAMES.flatMap((name) => ['--search-attribute', `${name}=Keyword`]),
    ...(t.ui ? ['--ui-port', String(t.uiPort), '--ui-ip', '127.0.0.1'] : ['--headless']),
  ];
  // umask 077: the SQLite database, its journal, the log and the pid file are the owner's alone.
  withPrivateUmask(() => spawnDetached(cliPath, args, { logFile: t.logFile, pidFile: t.pidFile, env: { ...GO_MEMORY, ...process.env } }));
  // A server that exited (its port taken between the check above and its bind, say) fails now, with its log,
  // rather than after the whole wait.
  const ready = async () => {
    if (runningPid(t.pidFile) === undefined) throw new Error(`the Temporal dev server exited before it was ready:\n${logTail(t.logFile)}`);
    return allReady();
  };
  await waitFor('Temporal dev server', ready, 60_000, t.logFile);
  return 'started';
}

function logTail(file: string): string {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').slice(-15).join('\n') : `(no log at ${file})`;
}

export async function stopTemporal(t: LocalTemporal): Promise<'stopped' | 'not running'> {
  return stopPidFile(t.pidFile);
}
