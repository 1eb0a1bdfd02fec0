// The local stack as a new user brings it up (`pau stack up` in a fresh state dir under a folder everyone
// may enter): the state dir, the secrets and the Postgres cluster are private; another (throwaway,
// unprivileged) user of the machine can neither connect to the cluster, by loopback or socket, with psql
// or a node pg client, nor read any of it; the services listen on loopback only; no output shows the
// password. Needs root (useradd, runuser); skipped otherwise.
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../config/env';
import { freePort, portOpen, retryOnPortCollision } from '../../platform/process/processes';
import { localPostgres, removeCluster } from '../../platform/stack/postgres';
import { runCli, type CliResult } from '../helpers/cli';
import { addThrowawayUser, removeThrowawayUser } from '../helpers/throwawayUser';

const isRoot = process.getuid?.() === 0;
const title = isRoot
  ? 'the local stack, seen by another user of the machine'
  : 'the local stack, seen by another user (SKIPPED: needs root to create a throwaway user with useradd and switch to it with runuser)';

const mode = (p: string) => fs.lstatSync(p).mode & 0o777;

describe.skipIf(!isRoot)(title, () => {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-sec-'));
  const state = path.join(parent, 'state'); // made by `stack up`
  const user = `pausec${crypto.randomBytes(3).toString('hex')}`;
  let ports: { pg: number; temporal: number; ui: number; mock: number; codec: number };
  let env: NodeJS.ProcessEnv;
  let up: CliResult;
  let password: string;

  /** Runs a command as the throwaway user with a clean environment (nothing of ours leaks to it). */
  const asUser = (cmd: string[], extraEnv: string[] = []) =>
    spawnSync('runuser', ['-u', user, '--', 'env', '-i', 'PATH=/usr/local/bin:/usr/bin:/bin', 'HOME=/nonexistent', ...extraEnv, ...cmd], {
      encoding: 'utf8',
      cwd: '/',
      timeout: 30_000,
    });
  const psql = (host: string, extra: string[] = [], extraEnv: string[] = []) =>
    asUser(['psql', '-X', '-w', '-h', host, '-p', String(ports.pg), '-U', 'pau', '-d', 'pau', '-c', 'select 1', ...extra], extraEnv);

  beforeAll(async () => {
    fs.chmodSync(parent, 0o755); // only what `stack up` does protects the state dir
    // `stack up` starts its servers on the ports it is given (none can listen on 0 and report its port): on
    // other ones, after a `stack down`, should a program take one of them first.
    up = await retryOnPortCollision('stack up', async () => {
      ports = { pg: await freePort(), temporal: await freePort(), ui: await freePort(), mock: await freePort(), codec: await freePort() };
      env = {
        PAU_STATE_DIR: state,
        PAU_PG_PORT: String(ports.pg),
        PAU_TEMPORAL_PORT: String(ports.temporal),
        PAU_TEMPORAL_UI_PORT: String(ports.ui),
        PAU_MOCK_LLM_PORT: String(ports.mock),
        PAU_CODEC_SERVER_PORT: String(ports.codec),
        PAU_MOCK_LLM_URL: '', // the stack starts its own scripted mock server
        DATABASE_URL: '',
        TEMPORAL_ADDRESS: '',
        PAU_TEMPORAL_CODEC_KEY: '', // the stack makes its own key (the test run's is in the environment)
        PAU_TEMPORAL_CODEC_CUTOVER: '',
        PAU_TEMPORAL_UI_URL: '',
      };
      const r = await runCli(['stack', 'up'], env, 180_000);
      if (r.code !== 0) {
        await runCli(['stack', 'down'], env);
        throw new Error(`stack up exited with ${r.code}:\n${r.stdout}${r.stderr}`);
      }
      return r;
    });
    password = fs.readFileSync(path.join(state, 'secrets', 'postgres-password'), 'utf8').trim();
    await addThrowawayUser(user);
  }, 240_000);

  afterAll(async () => {
    await runCli(['stack', 'down'], env);
    await removeThrowawayUser(user);
    removeCluster(localPostgres(state, ports.pg));
    fs.rmSync(parent, { recursive: true, force: true });
  });

  it('stack up and stack status print the DATABASE_URL with the password masked, and the password nowhere', async () => {
    expect(up.stdout).toContain(`DATABASE_URL=postgres://pau:***@127.0.0.1:${ports.pg}/pau`);
    const status = await runCli(['stack', 'status'], env);
    expect(status.code, status.stdout + status.stderr).toBe(0);
    expect(password).toMatch(/^[A-Za-z0-9_-]{43}$/);
    for (const out of [up.stdout, up.stderr, status.stdout, status.stderr]) expect(out).not.toContain(password);
  });

  it('the state dir and all the stack wrote in it are readable by the owner only; the cluster is private to the postgres user', () => {
    expect(mode(state)).toBe(0o700);
    expect(mode(path.join(state, 'secrets'))).toBe(0o700);
    expect(mode(path.join(state, 'secrets', 'postgres-password'))).toBe(0o600);
    for (const f of [
      'temporal.db',
      'temporal.pid',
      path.join('logs', 'temporal.log'),
      'mock-llm.pid',
      path.join('logs', 'mock-llm.log'),
      'codec-server.pid',
      path.join('secrets', 'temporal-codec-key'),
      path.join('secrets', 'codec-server-token'),
    ])
      expect([f, mode(path.join(state, f))]).toEqual([f, 0o600]);
    const open: string[] = [];
    const walk = (p: string) => {
      const st = fs.lstatSync(p);
      if (st.isSymbolicLink()) return;
      if ((st.mode & 0o077) !== 0) open.push(`${p} ${(st.mode & 0o777).toString(8)}`);
      if (st.isDirectory()) for (const n of fs.readdirSync(p)) walk(path.join(p, n));
    };
    walk(state);
    // As root the cluster runs as `postgres` in its own folder, linked from the state dir.
    const link = path.join(state, 'postgres');
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    const data = fs.realpathSync(link);
    const base = path.dirname(data);
    expect(path.dirname(base)).toBe('/var/lib/pau');
    const pgUid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    for (const p of [base, data]) expect([p, fs.statSync(p).uid, mode(p)]).toEqual([p, pgUid, 0o700]);
    expect(mode('/var/lib/pau')).toBe(0o711); // the postgres user passes through; nobody lists the clusters
    walk(base);
    expect(open).toEqual([]);
  });

  it('another user cannot connect to Postgres: loopback without or with a guessed password (psql and node pg), or any socket', () => {
    // The same command with the password, run by the owner, works: the refusals below are about the password.
    const owner = spawnSync('psql', ['-X', '-w', '-h', '127.0.0.1', '-p', String(ports.pg), '-U', 'pau', '-d', 'pau', '-tAc', 'select 42'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, PGPASSWORD: password },
    });
    expect(owner.stdout.trim(), owner.stderr).toBe('42');

    const noPassword = psql('127.0.0.1');
    expect(noPassword.status).not.toBe(0);
    expect(noPassword.stderr).toMatch(/no password supplied/);
    const guessed = psql('127.0.0.1', [], ['PGPASSWORD=pau']);
    expect(guessed.status).not.toBe(0);
    expect(guessed.stderr).toMatch(/password authentication failed for user "pau"/);
    const asPostgres = asUser(
      ['psql', '-X', '-w', '-h', '127.0.0.1', '-p', String(ports.pg), '-U', 'postgres', '-d', 'postgres', '-c', 'select 1'],
      ['PGPASSWORD=postgres'],
    );
    expect(asPostgres.stderr).toMatch(/password authentication failed/);

    // No Unix socket at all: not in the usual places, not in the state dir.
    for (const dir of ['/tmp', '/var/run/postgresql', state]) {
      expect(fs.existsSync(path.join(dir, `.s.PGSQL.${ports.pg}`))).toBe(false);
      const viaSocket = psql(dir);
      expect(viaSocket.status).not.toBe(0);
      expect(viaSocket.stderr).toMatch(/No such file or directory|Permission denied/);
    }

    // A node pg client run by that user. The checkout may be private (a home dir, a `mktemp -d` clone), so
    // the client is bundled into a file beside the probe rather than required from node_modules.
    const pgBundle = path.join(parent, 'pg.cjs');
    execFileSync(path.join(PROJECT_ROOT, 'node_modules', '.bin', 'esbuild'), [
      path.join(PROJECT_ROOT, 'node_modules', 'pg', 'lib', 'index.js'),
      '--bundle',
      '--platform=node',
      '--format=cjs',
      '--external:pg-native',
      '--log-level=error',
      `--outfile=${pgBundle}`,
    ]);
    fs.chmodSync(pgBundle, 0o644);
    const probe = path.join(parent, 'probe.cjs');
    fs.writeFileSync(
      probe,
      `const pg = require(${JSON.stringify(pgBundle)});
(async () => {
  const out = {};
  for (const password of [undefined, 'pau', 'postgres']) {
    const c = new pg.Client({ host: '127.0.0.1', port: ${ports.pg}, user: 'pau', database: 'pau', password, connectionTimeoutMillis: 5000 });
    out[String(password)] = await c.connect().then(() => 'CONNECTED', (e) => e.code || e.message);
    await c.end().catch(() => {});
  }
  console.log(JSON.stringify(out));
})();`,
      { mode: 0o644 },
    );
    const node = asUser([process.execPath, probe]);
    expect(node.status, node.stderr).toBe(0);
    const results = JSON.parse(node.stdout) as Record<string, string>;
    expect(results.undefined).toMatch(/client password must be a string/);
    expect(results.pau).toBe('28P01');
    expect(results.postgres).toBe('28P01');
  });

  it("another user cannot read the state dir, the secrets, Temporal's database, the logs or the cluster", () => {
    expect(asUser(['ls', parent]).status).toBe(0); // the user exists and may look around where allowed
    const data = fs.realpathSync(path.join(state, 'postgres'));
    const attempts = [
      ['ls', state],
      ['cat', path.join(state, 'secrets', 'postgres-password')],
      ['cat', path.join(state, 'temporal.db')],
      ['cat', path.join(state, 'logs', 'temporal.log')],
      ['ls', '/var/lib/pau'],
      ['ls', data],
      ['cat', path.join(data, 'pg_hba.conf')],
      ['cat', path.join(path.dirname(data), 'postgres.log')],
    ];
    for (const cmd of attempts) {
      const r = asUser(cmd);
      expect([cmd.join(' '), r.status]).not.toEqual([cmd.join(' '), 0]);
      expect(r.stderr).toMatch(/Permission denied/);
      expect(r.stdout).toBe('');
    }
  });

  it('Postgres, Temporal and its Web UI, the scripted mock model server and the local model servers listen on loopback only', async () => {
    const others = Object.values(os.networkInterfaces())
      .flat()
      .filter((a) => a && a.family === 'IPv4' && !a.internal)
      .map((a) => a!.address);
    expect(up.stdout).toContain(`mock-llm: started at http://127.0.0.1:${ports.mock}/v1`);
    // The local model servers `stack up` started for the configuration (each writes <state>/models/<slug>.json).
    const modelDir = path.join(state, 'models');
    const modelPorts = fs.existsSync(modelDir)
      ? fs
          .readdirSync(modelDir)
          .filter((n) => n.endsWith('.json'))
          .map((n) => (JSON.parse(fs.readFileSync(path.join(modelDir, n), 'utf8')) as { port: number }).port)
      : [];
    expect(up.stdout).toContain(`codec-server: started at http://127.0.0.1:${ports.codec}`);
    for (const port of [ports.pg, ports.temporal, ports.ui, ports.mock, ports.codec, ...modelPorts]) {
      expect(await portOpen(port, '127.0.0.1')).toBe(true);
      for (const ip of others) expect([ip, port, await portOpen(port, ip)]).toEqual([ip, port, false]);
    }
  });

  it('the Temporal dev server runs with GOGC=50 and no soft memory limit (GOMEMLIMIT: a long-lived server past it collects without pause)', () => {
    const pid = Number(fs.readFileSync(path.join(state, 'temporal.pid'), 'utf8').trim());
    const environ = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    expect(environ).toContain('GOGC=50');
    expect(environ.filter((v) => v.startsWith('GOMEMLIMIT='))).toEqual([]);
  });

  it('stack down stops the scripted mock model server it started', async () => {
    const down = await runCli(['stack', 'down'], env);
    expect(down.stdout).toContain('mock-llm: stopped');
    expect(down.stdout).toContain('codec-server: stopped');
    expect(await portOpen(ports.mock, '127.0.0.1')).toBe(false);
    expect(fs.existsSync(path.join(state, 'mock-llm.pid'))).toBe(false);
  });
});
