// The project-local Postgres cluster: data under the state dir, loopback only, trust auth for the
// `pau` superuser. Postgres refuses to run as root, so as root the cluster runs as the `postgres` user.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { portOpen, waitFor } from '../lib/processes';

export interface LocalPostgres {
  dataDir: string;
  port: number;
  logFile: string;
}

export function localPostgres(stateDir: string, port: number): LocalPostgres {
  return { dataDir: path.join(stateDir, 'postgres'), port, logFile: path.join(stateDir, 'logs', 'postgres.log') };
}

export function localDatabaseUrl(port: number, database = 'pau'): string {
  return `postgres://pau@127.0.0.1:${port}/${database}`;
}

function binDir(): string {
  const onPath = (() => {
    try {
      return execFileSync('sh', ['-c', 'command -v pg_ctl'], { encoding: 'utf8' }).trim();
    } catch {
      return '';
    }
  })();
  if (onPath) return path.dirname(fs.realpathSync(onPath));
  const base = '/usr/lib/postgresql';
  const versions = fs.existsSync(base) ? fs.readdirSync(base).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) {
    const dir = path.join(base, v, 'bin');
    if (fs.existsSync(path.join(dir, 'pg_ctl'))) return dir;
  }
  throw new Error('PostgreSQL server binaries (initdb, pg_ctl) not found: run `npm run setup` as root, install your distro\'s postgresql package, or set DATABASE_URL.');
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a Postgres binary, as the `postgres` user when we are root. */
function pgExec(bin: string, args: string[]): string {
  const exe = path.join(binDir(), bin);
  const [cmd, argv] = isRoot() ? ['runuser', ['-u', 'postgres', '--', exe, ...args]] : [exe, args];
  return execFileSync(cmd, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], cwd: '/' });
}

function prepareDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!isRoot()) return;
  execFileSync('chown', ['-R', 'postgres:postgres', dir]);
  try {
    execFileSync('runuser', ['-u', 'postgres', '--', 'test', '-w', dir]);
  } catch {
    throw new Error(
      `the postgres user cannot reach ${dir} (a parent folder is closed to other users). ` +
        'Move the project, set PAU_STATE_DIR to a folder other users can traverse, or set DATABASE_URL.',
    );
  }
}

export function isInitialised(p: LocalPostgres): boolean {
  return fs.existsSync(path.join(p.dataDir, 'PG_VERSION'));
}

export async function isRunning(p: LocalPostgres): Promise<boolean> {
  return fs.existsSync(path.join(p.dataDir, 'postmaster.pid')) && (await portOpen(p.port));
}

/** initdb (once), start, create the `pau` database. A no-op when it already runs. */
export async function startPostgres(p: LocalPostgres, database = 'pau'): Promise<'started' | 'already running'> {
  if (await isRunning(p)) return 'already running';
  if (await portOpen(p.port)) {
    throw new Error(`port ${p.port} is taken by another program; set PAU_PG_PORT to a free port or DATABASE_URL to use that server`);
  }
  fs.mkdirSync(path.dirname(p.logFile), { recursive: true });
  if (!isInitialised(p)) {
    prepareDir(p.dataDir);
    pgExec('initdb', ['-D', p.dataDir, '-U', 'pau', '--auth=trust', '--encoding=UTF8', '--no-locale', '--no-sync']);
  }
  fs.writeFileSync(p.logFile, '', { flag: 'a' });
  if (isRoot()) execFileSync('chown', ['postgres:postgres', p.logFile]);
  const options = [
    `-p ${p.port}`,
    "-c listen_addresses=127.0.0.1",
    "-c unix_socket_directories=''",
    '-c max_connections=200',
    '-c fsync=on',
  ].join(' ');
  pgExec('pg_ctl', ['-D', p.dataDir, '-l', p.logFile, '-o', options, '-w', '-t', '60', 'start']);
  await waitFor('Postgres', () => portOpen(p.port), 30_000, p.logFile);
  await ensureDatabase(localDatabaseUrl(p.port, 'postgres'), database);
  return 'started';
}

export async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`create database "${database.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}

export async function stopPostgres(p: LocalPostgres): Promise<'stopped' | 'not running'> {
  if (!fs.existsSync(path.join(p.dataDir, 'postmaster.pid'))) return 'not running';
  pgExec('pg_ctl', ['-D', p.dataDir, '-m', 'fast', '-w', '-t', '60', 'stop']);
  return 'stopped';
}
