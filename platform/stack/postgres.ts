// The project-local Postgres cluster: data under the state dir, loopback only, no Unix socket, password
// (scram-sha-256) authentication for the `pau` superuser with the password from the secrets file.
// Postgres refuses to run as root, so as root the cluster runs as the `postgres` user, outside the
// root-only state dir (see realPaths). A trust-auth cluster from an older checkout is upgraded in place.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { readOrCreateSecret, secretPath } from '../../config/secrets';
import { localDatabaseUrl } from '../../config/services';
import { isAlive, portOpen, sleep, waitFor, withPrivateUmask } from '../process/processes';
import { hbaFile, hbaUsesTrust, hbaWithScram, scramVerifier } from './postgresAuth';

export { localDatabaseUrl } from '../../config/services';

export interface LocalPostgres {
  dataDir: string;
  port: number;
  logFile: string;
}

export function localPostgres(stateDir: string, port: number): LocalPostgres {
  return { dataDir: path.join(stateDir, 'postgres'), port, logFile: path.join(stateDir, 'logs', 'postgres.log') };
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

/** Runs a Postgres binary, as the `postgres` user when we are root, with umask 077. */
function pgExec(bin: string, args: string[]): string {
  const exe = path.join(binDir(), bin);
  const [cmd, argv] = isRoot() ? ['runuser', ['-u', 'postgres', '--', exe, ...args]] : [exe, args];
  return withPrivateUmask(() => execFileSync(cmd, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], cwd: '/' }));
}

function postgresCanReach(dir: string): boolean {
  try {
    execFileSync('runuser', ['-u', 'postgres', '--', 'test', '-x', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** As root, the cluster's own folder: /var/lib/pau/postgres-<hash of the state dir's cluster path>. */
const ROOT_CLUSTERS = '/var/lib/pau';
function rootClusterBase(p: LocalPostgres): string {
  const key = createHash('sha256').update(path.resolve(p.dataDir)).digest('hex').slice(0, 12);
  return path.join(ROOT_CLUSTERS, `postgres-${key}`);
}

/**
 * Where the cluster really lives. Normally `<state>/postgres`. As root the state dir is private to root,
 * which the postgres user cannot enter: the cluster then lives in /var/lib/pau/postgres-<hash>/data
 * (owned by postgres, 0700) and `<state>/postgres` is a symlink to it.
 */
function realPaths(p: LocalPostgres): { data: string; log: string } {
  if (fs.existsSync(p.dataDir) && fs.lstatSync(p.dataDir).isSymbolicLink()) {
    const data = fs.realpathSync(p.dataDir);
    return { data, log: path.join(path.dirname(data), 'postgres.log') };
  }
  return { data: p.dataDir, log: p.logFile };
}

async function prepareDirs(p: LocalPostgres, log: (line: string) => void): Promise<{ data: string; log: string }> {
  fs.mkdirSync(path.dirname(p.dataDir), { recursive: true, mode: 0o700 });
  if (!isRoot()) {
    fs.mkdirSync(p.dataDir, { recursive: true, mode: 0o700 });
    fs.mkdirSync(path.dirname(p.logFile), { recursive: true, mode: 0o700 });
    return { data: p.dataDir, log: p.logFile };
  }
  const base = rootClusterBase(p);
  const linked = fs.existsSync(p.dataDir) && fs.lstatSync(p.dataDir).isSymbolicLink();
  if (!linked) {
    const legacy = fs.existsSync(path.join(p.dataDir, 'PG_VERSION'));
    if (fs.existsSync(path.join(base, 'data', 'PG_VERSION'))) {
      throw new Error(
        `a cluster exists in ${base} but ${p.dataDir} does not link to it (was the state folder removed?); move one of them away, or link ${p.dataDir} to ${base}/data`,
      );
    }
    fs.rmSync(base, { recursive: true, force: true }); // an empty leftover of an interrupted first start
    fs.mkdirSync(ROOT_CLUSTERS, { recursive: true, mode: 0o711 });
    fs.mkdirSync(base, { mode: 0o700 });
    if (legacy) {
      await moveCluster(p.dataDir, path.join(base, 'data'));
      log(
        `postgres: moved the cluster from ${p.dataDir} to ${base}/data (linked from ${p.dataDir}): the state folder is private to root, which the postgres user cannot enter`,
      );
    } else {
      fs.rmSync(p.dataDir, { recursive: true, force: true });
      fs.mkdirSync(path.join(base, 'data'), { mode: 0o700 });
      log(`postgres: running as root, so the cluster lives in ${base}, owned by the postgres user (linked from ${p.dataDir})`);
    }
    fs.symlinkSync(path.join(base, 'data'), p.dataDir);
  }
  const paths = realPaths(p);
  fs.mkdirSync(paths.data, { recursive: true, mode: 0o700 });
  fs.writeFileSync(paths.log, '', { flag: 'a', mode: 0o600 });
  execFileSync('chown', ['postgres:postgres', paths.log]);
  execFileSync('chown', ['-R', 'postgres:postgres', paths.data]);
  // Private to the postgres user; /var/lib/pau lets it through without listing the clusters.
  fs.chmodSync(paths.data, 0o700);
  fs.chmodSync(paths.log, 0o600);
  if (path.dirname(path.dirname(paths.data)) === ROOT_CLUSTERS) {
    execFileSync('chown', ['postgres:postgres', path.dirname(paths.data)]);
    fs.chmodSync(path.dirname(paths.data), 0o700);
    fs.chmodSync(ROOT_CLUSTERS, 0o711);
  }
  if (!postgresCanReach(paths.data)) {
    throw new Error(`the postgres user cannot reach ${paths.data}; set PAU_STATE_DIR to another folder, or set DATABASE_URL.`);
  }
  return paths;
}

/** Moves a stopped (or, from an older checkout, still running: it is stopped first) cluster folder. */
async function moveCluster(from: string, to: string): Promise<void> {
  const pid = Number.parseInt(
    (fs.existsSync(path.join(from, 'postmaster.pid')) ? fs.readFileSync(path.join(from, 'postmaster.pid'), 'utf8') : '').split('\n')[0] ?? '',
    10,
  );
  if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) {
    process.kill(pid, 'SIGINT'); // "fast" shutdown: what `pg_ctl stop -m fast` sends
    const deadline = Date.now() + 60_000;
    while (isAlive(pid)) {
      if (Date.now() > deadline) throw new Error(`the Postgres server in ${from} (pid ${pid}) did not stop within 60 s; stop it and run \`stack up\` again`);
      await sleep(100);
    }
  }
  try {
    fs.renameSync(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    execFileSync('cp', ['-a', from, `${to}.partial`]);
    fs.renameSync(`${to}.partial`, to);
    fs.rmSync(from, { recursive: true, force: true });
  }
}

export function isInitialised(p: LocalPostgres): boolean {
  return fs.existsSync(path.join(realPaths(p).data, 'PG_VERSION'));
}

export async function isRunning(p: LocalPostgres): Promise<boolean> {
  return fs.existsSync(path.join(realPaths(p).data, 'postmaster.pid')) && (await portOpen(p.port));
}

/**
 * The cluster's password, from <state>/secrets/postgres-password (made on first use). Refuses when a
 * cluster that already requires a password has lost that file: a new one could never open it.
 */
export function clusterPassword(p: LocalPostgres): string {
  const file = secretPath('postgres-password');
  if (path.resolve(path.dirname(path.dirname(file))) !== path.resolve(path.dirname(p.dataDir))) {
    throw new Error(`the secrets (${file}) and the cluster (${p.dataDir}) are in different state folders: set PAU_STATE_DIR before using the cluster`);
  }
  if (!fs.existsSync(file) && isInitialised(p) && !hbaUsesTrust(realPaths(p).data)) {
    throw new Error(
      `the local cluster in ${realPaths(p).data} requires a password, but its password file ${file} is missing. Restore that file from a backup; or stop the cluster and move ${p.dataDir} away (losing its data unless you keep the folder) to start a new one; or set DATABASE_URL.`,
    );
  }
  return readOrCreateSecret('postgres-password');
}

/**
 * `max_logical_replication_workers=0`: nothing here replicates, and at 0 the server starts no logical
 * replication launcher, one process fewer (~2 MiB of PSS, docs/sandbox.md "Memory beside inspect_ai").
 */
const startOptions = (port: number) =>
  [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    "-c unix_socket_directories=''",
    '-c max_connections=200',
    '-c fsync=on',
    '-c max_logical_replication_workers=0',
  ].join(' ');

/**
 * initdb (once, with password authentication), start, create the `pau` database. A trust-auth cluster
 * from an older checkout is upgraded first (see upgradeTrustCluster). A no-op when it already runs.
 */
export async function startPostgres(
  p: LocalPostgres,
  password: string,
  log: (line: string) => void = console.log,
  database = 'pau',
): Promise<'started' | 'already running'> {
  const paths = await prepareDirs(p, log);
  let backup: string | undefined;
  if (isInitialised(p) && hbaUsesTrust(paths.data)) {
    const running = await isRunning(p);
    backup = await upgradeTrustCluster(paths.data, password, log, running, async () => {
      if (running) pgExec('pg_ctl', ['-D', paths.data, '-m', 'fast', '-w', '-t', '60', 'stop']);
    });
  }
  if (await isRunning(p)) {
    await checkPassword(p, password, paths.data);
    return 'already running';
  }
  if (await portOpen(p.port)) {
    throw new Error(`port ${p.port} is taken by another program; set PAU_PG_PORT to a free port or DATABASE_URL to use that server`);
  }
  if (!isInitialised(p)) initCluster(paths.data, password);
  try {
    pgExec('pg_ctl', ['-D', paths.data, '-l', paths.log, '-o', startOptions(p.port), '-w', '-t', '60', 'start']);
  } catch (err) {
    const tail = fs.existsSync(paths.log) ? fs.readFileSync(paths.log, 'utf8').split('\n').slice(-15).join('\n') : '';
    const why = `Postgres did not start (${(err as Error).message.split('\n')[0]}). Last lines of ${paths.log}:\n${tail}`;
    if (backup) throw upgradeRefused(paths.data, why, `${restoreHba(paths.data, backup)}; the cluster is stopped`);
    throw new Error(why);
  }
  await waitFor('Postgres', () => portOpen(p.port), 30_000, paths.log);
  if (backup) await verifyUpgrade(p, paths.data, password, backup, log);
  await checkPassword(p, password, paths.data);
  await ensureDatabase(localDatabaseUrl(p.port, password, 'postgres'), database);
  return 'started';
}

/** A new cluster: the `pau` superuser with the password (handed over as its SCRAM verifier), scram-sha-256 everywhere. */
function initCluster(data: string, password: string): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-initdb-'));
  try {
    const pwfile = path.join(dir, 'pwfile');
    fs.writeFileSync(pwfile, `${scramVerifier(password)}\n`, { mode: 0o600, flag: 'wx' });
    if (isRoot()) execFileSync('chown', ['-R', 'postgres:postgres', dir]);
    pgExec('initdb', [
      '-D',
      data,
      '-U',
      'pau',
      '--auth-local=scram-sha-256',
      '--auth-host=scram-sha-256',
      `--pwfile=${pwfile}`,
      '--encoding=UTF8',
      '--no-locale',
      '--no-sync',
    ]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Upgrades a trust-auth cluster made by an older checkout, keeping its data: checks that pg_hba.conf can
 * be rewritten, stops the cluster, sets the `pau` role's password in single-user mode (no server listens
 * while trust is still configured), then turns every trust record of pg_hba.conf into scram-sha-256,
 * keeping the old file as a backup until verifyUpgrade has seen the server refuse a wrong password.
 * Returns the backup's path.
 */
async function upgradeTrustCluster(data: string, password: string, log: (line: string) => void, running: boolean, stop: () => Promise<void>): Promise<string> {
  const file = hbaFile(data);
  const before = fs.readFileSync(file, 'utf8');
  let after: string;
  try {
    after = hbaWithScram(before);
  } catch (err) {
    throw upgradeRefused(data, (err as Error).message, `pg_hba.conf and the role were left as they were; the cluster ${running ? 'still runs' : 'is stopped'}`);
  }
  log(`postgres: upgrading the cluster in ${data} from trust to password authentication (scram-sha-256); its data is kept`);
  await stop();
  const problem = singleUserSql(data, `ALTER ROLE pau PASSWORD '${scramVerifier(password)}';`);
  if (problem) throw upgradeRefused(data, `setting the password of role pau failed: ${problem}`, 'pg_hba.conf was left as it was; the cluster is stopped');
  const backup = `${file}.trust-backup`;
  writeClusterFile(backup, before);
  writeClusterFile(file, after);
  return backup;
}

/** After the upgraded cluster started: the password works, a wrong one is refused, no trust record is left. */
async function verifyUpgrade(p: LocalPostgres, data: string, password: string, backup: string, log: (line: string) => void): Promise<void> {
  const problems: string[] = [];
  try {
    const rules = await withClient(localDatabaseUrl(p.port, password, 'postgres'), (c) =>
      c.query<{ trust: number; errors: number }>(
        `select count(*) filter (where auth_method = 'trust')::int as trust, count(*) filter (where error is not null)::int as errors from pg_hba_file_rules`,
      ),
    );
    const row = rules.rows[0];
    if (row && (row.trust > 0 || row.errors > 0)) problems.push(`pg_hba.conf still has ${row.trust} trust and ${row.errors} invalid records`);
  } catch (err) {
    problems.push(`connecting with the new password failed: ${(err as Error).message}`);
  }
  const wrong = await withClient(localDatabaseUrl(p.port, `wrong-${Date.now()}`, 'postgres'), async () => 'accepted').catch(
    (err: { code?: string }) => err.code,
  );
  if (wrong !== '28P01') problems.push(`a wrong password was not refused (${String(wrong)})`);
  if (problems.length > 0) {
    pgExec('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']);
    throw upgradeRefused(data, problems.join('; '), `${restoreHba(data, backup)}; the cluster is stopped`);
  }
  fs.rmSync(backup, { force: true });
  log(`postgres: upgrade done: the cluster now requires the password in ${secretPath('postgres-password')}; a connection without it is refused`);
}

function upgradeRefused(data: string, reason: string, state: string): Error {
  return new Error(
    `postgres: cannot upgrade the trust-auth cluster in ${data} (from an older checkout) to password authentication: ${reason}. ` +
      `No data was deleted (${state}). Fix the cause and run \`stack up\` again; or stop the cluster, move the folder away ` +
      `(keep it: it holds your data) and let \`stack up\` make a new one; or set DATABASE_URL.`,
  );
}

/** Puts the pre-upgrade pg_hba.conf back (the role's new password is harmless under trust). */
function restoreHba(data: string, backup: string): string {
  writeClusterFile(hbaFile(data), fs.readFileSync(backup, 'utf8'));
  fs.rmSync(backup, { force: true });
  return 'pg_hba.conf was restored, so it still uses trust authentication';
}

/** Writes a file inside the cluster folder atomically, 0600, owned by the cluster's owner. */
function writeClusterFile(file: string, text: string): void {
  const tmp = `${file}.pau-tmp`;
  fs.writeFileSync(tmp, text, { mode: 0o600 });
  if (isRoot()) execFileSync('chown', ['postgres:postgres', tmp]);
  fs.renameSync(tmp, file);
}

/** Runs SQL in single-user mode on a stopped cluster; the first error line, or undefined. */
function singleUserSql(data: string, sql: string): string | undefined {
  const exe = path.join(binDir(), 'postgres');
  const args = ['--single', '-D', data, 'postgres'];
  const [cmd, argv] = isRoot() ? ['runuser', ['-u', 'postgres', '--', exe, ...args]] : [exe, args];
  const r = withPrivateUmask(() => spawnSync(cmd, argv, { input: `${sql}\n`, encoding: 'utf8', cwd: '/' }));
  // Only the message line: the STATEMENT line that follows it would repeat the SQL.
  const error = `${r.stdout ?? ''}\n${r.stderr ?? ''}`.split('\n').find((l) => /\b(ERROR|FATAL|PANIC):/.test(l));
  if (r.error) return r.error.message;
  if (error) return error.replace(/^.*?\b(ERROR|FATAL|PANIC):\s*/, '$1: ');
  return r.status === 0 ? undefined : `postgres --single exited with ${r.status}`;
}

/** The running cluster accepts the password; a clear message when it does not (a replaced secrets file). */
async function checkPassword(p: LocalPostgres, password: string, data: string): Promise<void> {
  try {
    await withClient(localDatabaseUrl(p.port, password, 'postgres'), (c) => c.query('select 1'));
  } catch (err) {
    if ((err as { code?: string }).code !== '28P01') throw err;
    throw new Error(
      `the local cluster in ${data} refused the password in ${secretPath('postgres-password')} (the file was replaced since the cluster was made). Restore the file from a backup, or stop the cluster and move ${p.dataDir} away to start a new one, or set DATABASE_URL.`,
    );
  }
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  await withClient(adminUrl, async (client) => {
    const found = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`create database "${database.replace(/"/g, '""')}"`);
  });
}

export async function stopPostgres(p: LocalPostgres): Promise<'stopped' | 'not running'> {
  const { data } = realPaths(p);
  if (!fs.existsSync(path.join(data, 'postmaster.pid'))) return 'not running';
  pgExec('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '60', 'stop']);
  return 'stopped';
}

/** Deletes a stopped cluster's files: the data folder, or as root its folder under /var/lib/pau and the link. */
export function removeCluster(p: LocalPostgres): void {
  const { data } = realPaths(p);
  if (data !== p.dataDir && path.dirname(path.dirname(data)) === ROOT_CLUSTERS) fs.rmSync(path.dirname(data), { recursive: true, force: true });
  fs.rmSync(p.dataDir, { recursive: true, force: true });
}
