// Upgrading a checkout: a Postgres cluster made the old way (initdb --auth=trust, started by the old
// `stack up`, left running, with rows in it) and a state dir others could read. The new `pau stack up`
// refuses what it cannot rewrite safely (changing nothing), then upgrades the cluster to password
// authentication keeping every row, makes the state dir private (saying so once), and refuses to start
// when the password file has gone missing rather than make a new password that could not open it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, retryOnPortCollision } from '../../platform/process/processes';
import { localPostgres, removeCluster } from '../../platform/stack/postgres';
import { runCli } from '../helpers/cli';

const isRoot = process.getuid?.() === 0;
const pgBin = (name: string) =>
  path.join(
    fs
      .readdirSync('/usr/lib/postgresql')
      .sort((a, b) => Number(b) - Number(a))
      .map((v) => `/usr/lib/postgresql/${v}/bin`)
      .find((d) => fs.existsSync(path.join(d, name))) ?? '',
    name,
  );
/** As the cluster's owner: the postgres user when we are root (as the old stack did). */
const asOwner = (bin: string, args: string[]) =>
  execFileSync(isRoot ? 'runuser' : pgBin(bin), isRoot ? ['-u', 'postgres', '--', pgBin(bin), ...args] : args, {
    encoding: 'utf8',
    cwd: '/',
    stdio: ['ignore', 'pipe', 'pipe'],
  });

async function query<T extends pg.QueryResultRow>(port: number, password: string | undefined, text: string): Promise<T[]> {
  const c = new pg.Client({ host: '127.0.0.1', port, user: 'pau', database: 'pau', password, connectionTimeoutMillis: 5000 });
  await c.connect();
  try {
    return (await c.query<T>(text)).rows;
  } finally {
    await c.end();
  }
}

describe('upgrading a trust-auth cluster from an older checkout', () => {
  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-old-checkout-'));
  const data = path.join(state, 'postgres');
  const secret = path.join(state, 'secrets', 'postgres-password');
  let port: number;
  let env: NodeJS.ProcessEnv;
  let hbaFile: string;

  beforeAll(async () => {
    // The old layout: a state dir open to all (so that the postgres user could reach it), the cluster in it.
    fs.chmodSync(state, 0o755);
    const log = path.join(state, 'logs', 'postgres.log');
    fs.mkdirSync(data, { mode: 0o700 });
    fs.mkdirSync(path.join(state, 'logs'));
    fs.writeFileSync(log, '');
    fs.writeFileSync(path.join(state, 'temporal.db'), 'an old world-readable database', { mode: 0o644 });
    fs.chmodSync(path.join(state, 'temporal.db'), 0o644);
    if (isRoot) execFileSync('chown', ['-R', 'postgres:postgres', data, log]);
    asOwner('initdb', ['-D', data, '-U', 'pau', '--auth=trust', '--encoding=UTF8', '--no-locale', '--no-sync']);
    port = await retryOnPortCollision('the old cluster', async () => {
      const p = await freePort();
      try {
        asOwner('pg_ctl', ['-D', data, '-l', log, '-o', `-p ${p} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''`, '-w', 'start']);
      } catch (err) {
        // pg_ctl only says it could not start; why ("could not bind ... Address already in use") is in the log.
        throw new Error(`${(err as Error).message}\n${fs.readFileSync(log, 'utf8').slice(-2_000)}`);
      }
      return p;
    });
    const admin = new pg.Client({ host: '127.0.0.1', port, user: 'pau', database: 'postgres' });
    await admin.connect();
    await admin.query('create database pau');
    await admin.end();
    await query(port, undefined, `create table notes (id int primary key, body text); insert into notes values (1, 'one'), (2, 'two'), (3, 'three')`);
    hbaFile = path.join(data, 'pg_hba.conf');
    // The new stack uses the test run's Temporal server: only Postgres is at stake here.
    // Its own codec endpoint port: a developer's running stack holds the default one (8239).
    env = {
      PAU_STATE_DIR: state,
      PAU_PG_PORT: String(port),
      PAU_CODEC_SERVER_PORT: String(await freePort()),
      DATABASE_URL: '',
      TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
    };
  }, 120_000);

  afterAll(async () => {
    await runCli(['stack', 'down'], env);
    try {
      asOwner('pg_ctl', ['-D', fs.realpathSync(data), '-m', 'immediate', 'stop']);
    } catch {
      /* stopped already */
    }
    removeCluster(localPostgres(state, port));
    fs.rmSync(state, { recursive: true, force: true });
  });

  const hba = () => fs.readFileSync(isRoot ? path.join(fs.realpathSync(data), 'pg_hba.conf') : hbaFile, 'utf8');
  const trustRecords = () =>
    hba()
      .split('\n')
      .filter((l) => /^\s*(local|host)\S*\s.*\strust(\s|$)/.test(l));

  it('the old cluster lets anyone on loopback in without a password', async () => {
    expect(trustRecords().length).toBeGreaterThan(0);
    expect(await query(port, undefined, 'select count(*)::int as n from notes')).toEqual([{ n: 3 }]);
  });

  it('refuses, changing nothing, when pg_hba.conf holds what it cannot rewrite safely', async () => {
    // A quoted field (valid for Postgres) is beyond what the rewrite vouches for.
    const extra = 'host "pau" all 10.9.0.0/16 trust\n';
    const withQuoted = `${fs.readFileSync(hbaFile, 'utf8')}${extra}`;
    fs.writeFileSync(hbaFile, withQuoted);
    const r = await runCli(['stack', 'up'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /cannot upgrade the trust-auth cluster in \S+ \(from an older checkout\) to password authentication: pg_hba\.conf line \d+ \(host "pau" all 10\.9\.0\.0\/16 trust\): quoted fields or continuation lines are not rewritten automatically\. No data was deleted \(pg_hba\.conf and the role were left as they were; the cluster (still runs|is stopped)\)/,
    );
    expect(hba()).toBe(withQuoted);
    expect(fs.readdirSync(fs.realpathSync(data)).filter((n) => n.startsWith('pg_hba'))).toEqual(['pg_hba.conf']);
    // What is safe was done, and said, this once: the state dir made private, and (as root) the cluster
    // moved out of it into a folder of its own, since the postgres user can no longer enter the state dir.
    expect(r.stdout).toMatch(/state: \S+ is now readable by its owner only \(removed group\/other access from \d+ entries: \. \(was 0755\)/);
    if (isRoot) expect(r.stdout).toMatch(/postgres: moved the cluster from \S+ to \/var\/lib\/pau\/postgres-\w+\/data/);
    expect(fs.statSync(state).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(state, 'temporal.db')).mode & 0o777).toBe(0o600);
    // Trust still works, so the data is there as it was (as root, moving the cluster stopped it).
    if (isRoot)
      asOwner('pg_ctl', [
        '-D',
        fs.realpathSync(data),
        '-l',
        '/dev/null',
        '-o',
        `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''`,
        '-w',
        'start',
      ]);
    expect(await query(port, undefined, 'select count(*)::int as n from notes')).toEqual([{ n: 3 }]);
    fs.writeFileSync(isRoot ? path.join(fs.realpathSync(data), 'pg_hba.conf') : hbaFile, withQuoted.replace(extra, ''));
  });

  it('upgrades it to password authentication, keeping the rows; trust no longer lets anyone in', async () => {
    const r = await runCli(['stack', 'up'], env);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/postgres: upgrading the cluster in \S+ from trust to password authentication \(scram-sha-256\); its data is kept/);
    expect(r.stdout).toMatch(/postgres: upgrade done: the cluster now requires the password in \S+postgres-password/);
    expect(r.stdout).not.toMatch(/readable by its owner|moved the cluster/); // said once, by the run before
    const password = fs.readFileSync(secret, 'utf8').trim();
    expect(r.stdout + r.stderr).not.toContain(password);
    expect(r.stdout).toContain(`DATABASE_URL=postgres://pau:***@127.0.0.1:${port}/pau`);

    expect(await query(port, password, 'select id, body from notes order by id')).toEqual([
      { id: 1, body: 'one' },
      { id: 2, body: 'two' },
      { id: 3, body: 'three' },
    ]);
    const refused = await query(port, 'any-password-trust-would-take', 'select 1').catch((e: { code?: string }) => e.code);
    expect(refused).toBe('28P01');
    await expect(query(port, undefined, 'select 1')).rejects.toThrow(/password/);
    expect(trustRecords()).toEqual([]);
    expect(hba()).toMatch(/^host\s+all\s+all\s+127\.0\.0\.1\/32\s+scram-sha-256\s*$/m);
    const dataDir = fs.realpathSync(data);
    expect(fs.existsSync(path.join(dataDir, 'pg_hba.conf.trust-backup'))).toBe(false);
    expect(fs.statSync(state).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(state, 'temporal.db')).mode & 0o777).toBe(0o600);
    if (isRoot) {
      expect(fs.lstatSync(data).isSymbolicLink()).toBe(true);
      expect(dataDir).toMatch(/^\/var\/lib\/pau\/postgres-\w+\/data$/);
      expect(fs.statSync(path.dirname(dataDir)).mode & 0o777).toBe(0o700);
    }
  });

  it('a second stack up is a no-op that says nothing about upgrades or permissions', async () => {
    const r = await runCli(['stack', 'up'], env);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/postgres: already running/);
    expect(r.stdout).not.toMatch(/upgrad|readable by its owner|moved the cluster/);
  });

  it('refuses to start when the password file is missing, and makes no new one', async () => {
    expect((await runCli(['stack', 'down'], env)).code).toBe(0);
    fs.renameSync(secret, `${secret}.away`);
    const r = await runCli(['stack', 'up'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the local cluster in \S+ requires a password, but its password file \S+postgres-password is missing\. Restore that file/);
    expect(fs.existsSync(secret)).toBe(false);
    fs.renameSync(`${secret}.away`, secret);
    const again = await runCli(['stack', 'up'], env);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(await query(port, fs.readFileSync(secret, 'utf8').trim(), 'select count(*)::int as n from notes')).toEqual([{ n: 3 }]);
  }, 180_000); // two stack down/up cycles of a real cluster: 56 s seen under load 15
});
