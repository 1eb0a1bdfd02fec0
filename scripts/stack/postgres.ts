// The project-local Postgres cluster: data under the state dir, loopback only, trust auth for the
// `pau` superuser. Postgres refuses to run as root, so as root the cluster runs as the `postgres` user.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
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
  throw new Error(
    "PostgreSQL server binaries (initdb, pg_ctl) not found: run `npm run setup` as root, install your distro's postgresql package, or set DATABASE_URL.",
  );
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a Postgres binary, as the `postgres` user when we are root. */
function pgExec(bin: string, args: string[]): string {
  const exe = path.join(binDir(), bin);
  const [cmd, argv] = isRoot() ? ['runuser', ['-u', 'postgres', '--', exe, ...args]] : [exe, args];
  return execFileSync(cmd, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], cwd: '/' });
}

function postgresCanReach(dir: string): boolean {
  try {
    execFileSync('runuser', ['-u', 'postgres', '--', 'test', '-x', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Where the cluster really lives. Normally `.data/postgres`. As root, when a parent folder of the
 * project is closed to other users (a `mktemp -d` checkout, a home folder), the postgres user cannot
 * reach it: then the cluster lives under /var/lib/pau/ and `.data/postgres` is a symlink to it.
 */
function realPaths(p: LocalPostgres): { data: string; log: string } {
  if (fs.existsSync(p.dataDir) && fs.lstatSync(p.dataDir).isSymbolicLink()) {
    const data = fs.realpathSync(p.dataDir);
    return { data, log: path.join(path.dirname(data), 'postgres.log') };
  }
  return { data: p.dataDir, log: p.logFile };
}

function prepareDirs(p: LocalPostgres): { data: string; log: string } {
  fs.mkdirSync(path.dirname(p.dataDir), { recursive: true });
  if (!isRoot()) {
    fs.mkdirSync(p.dataDir, { recursive: true, mode: 0o700 });
    fs.mkdirSync(path.dirname(p.logFile), { recursive: true });
    return { data: p.dataDir, log: p.logFile };
  }
  const fresh = !fs.existsSync(p.dataDir) || (!fs.lstatSync(p.dataDir).isSymbolicLink() && fs.readdirSync(p.dataDir).length === 0);
  if (fresh && !postgresCanReach(path.dirname(p.dataDir))) {
    fs.rmSync(p.dataDir, { recursive: true, force: true });
    const key = createHash('sha256').update(path.resolve(p.dataDir)).digest('hex').slice(0, 12);
    const base = path.join('/var/lib/pau', `postgres-${key}`);
    fs.mkdirSync(base, { recursive: true, mode: 0o755 });
    fs.chmodSync('/var/lib/pau', 0o755);
    fs.mkdirSync(path.join(base, 'data'), { mode: 0o700 });
    execFileSync('chown', ['-R', 'postgres:postgres', base]);
    fs.symlinkSync(path.join(base, 'data'), p.dataDir);
    console.log(`postgres: the postgres user cannot reach ${path.dirname(p.dataDir)}; the cluster lives in ${base} (linked from ${p.dataDir})`);
  }
  const paths = realPaths(p);
  fs.mkdirSync(paths.data, { recursive: true, mode: 0o700 });
  fs.mkdirSync(path.dirname(paths.log), { recursive: true });
  fs.writeFileSync(paths.log, '', { flag: 'a' });
  execFileSync('chown', ['postgres:postgres', paths.log]);
  execFileSync('chown', ['-R', 'postgres:postgres', paths.data]);
  if (!postgresCanReach(paths.data)) {
    throw new Error(`the postgres user cannot reach ${paths.data}; set PAU_STATE_DIR to a folder other users can traverse, or set DATABASE_URL.`);
  }
  return paths;
}

export function isInitialised(p: LocalPostgres): boolean {
  return fs.existsSync(path.join(realPaths(p).data, 'PG_VERSION'));
}

export async function isRunning(p: LocalPostgres): Promise<boolean> {
  return fs.existsSync(path.join(realPaths(p).data, 'postmaster.pid')) && (await portOpen(p.port));
}

/** initdb (once), start, create the `pau` database. A no-op when it already runs. */
export async function startPostgres(p: LocalPostgres, database = 'pau'): Promise<'started' | 'already running'> {
  if (await isRunning(p)) return 'already running';
  if (await portOpen(p.port)) {
    throw new Error(`port ${p.port} is taken by another program; set PAU_PG_PORT to a free port or DATABASE_URL to use that server`);
  }
  const paths = prepareDirs(p);
  if (!isInitialised(p)) {
    pgExec('initdb', ['-D', paths.data, '-U', 'pau', '--auth=trust', '--encoding=UTF8', '--no-locale', '--no-sync']);
  }
  const options = [`-p ${p.port}`, '-c listen_addresses=127.0.0.1', "-c unix_socket_directories=''", '-c max_connections=200', '-c fsync=on'].join(' ');
  try {
    pgExec('pg_ctl', ['-D', paths.data, '-l', paths.log, '-o', options, '-w', '-t', '60', 'start']);
  } catch (err) {
    const tail = fs.existsSync(paths.log) ? fs.readFileSync(paths.log, 'utf8').split('\n').slice(-15).join('\n') : '';
    throw new Error(`Postgres did not start (${(err as Error).message.split('\n')[0]}). Last lines of ${paths.log}:\n${tail}`);
  }
  await waitFor('Postgres', () => portOpen(p.port), 30_000, paths.log);
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
  const { data } = realPaths(p);
  if (!fs.existsSync(path.join(data, 'postmaster.pid'))) return 'not running';
  pgExec('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']);
  return 'stopped';
}
