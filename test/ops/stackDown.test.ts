// Every verb family that needs the stack, run as a user would while nothing listens on its ports: one line
// saying which service is not running and the command that starts it, exit code 3, in well under the
// ~15 s a grpc-js connect deadline took (docs/cli.md, "When the stack is down").
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../platform/process/processes';
import { EXIT_SERVICE_DOWN, ServiceDownError, stackDownIn } from '../../config/serviceProbe';
import { runCli, runScript } from '../helpers/cli';

let env: NodeJS.ProcessEnv;

/** The time this machine takes now to boot the CLI and print its help: the floor of any verb's wall time. */
async function bootMs(): Promise<number> {
  const t0 = Date.now();
  const help = await runCli(['--help'], env, 60_000);
  expect(help.code).toBe(0);
  return Date.now() - t0;
}

beforeAll(async () => {
  const [temporalPort, pgPort] = [await freePort(), await freePort()];
  env = {
    // The test stack's services are named in the environment: unset them, so the local stack's ports count.
    TEMPORAL_ADDRESS: '',
    DATABASE_URL: '',
    PAU_TEMPORAL_PORT: String(temporalPort),
    PAU_PG_PORT: String(pgPort),
    PAU_STATE_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'pau-stackdown-')),
  };
});

/**
 * Under 3 s on an idle machine (boot ~1 s, the check a few ms). On this shared 2-core machine the CLI's own
 * boot takes 4–30 s at load 20–28 and varies by seconds between two runs, so the bound is 3 s or twice the
 * boot measured just before plus 1 s, whichever is larger: on an idle machine the connect deadline this
 * replaces (10–15 s after boot) fails it.
 */
const bound = (boot: number) => Math.max(3000, 2 * boot + 1000);

// One verb per family (scripts/pau.ts `needs`), each as typed by a user.
const VERBS: [string, string[]][] = [
  ['runs', ['runs', 'list']],
  ['bench', ['bench', 'run', '--models', 'mock-oracle', '--limit', '1']],
  ['bench status', ['bench', 'status', 'some-run']],
  ['grpo', ['grpo', 'train', '--base', 'mock-oracle', '--split', 'train']],
  ['sft', ['sft', 'show', 'some-data']],
  ['judge', ['judge', '--run', 'some-run', '--judge-model', 'mock-oracle']],
  ['calibrate', ['calibrate', '--limit', '2']],
  ['schedule', ['schedule', 'list']],
  ['dataset build', ['dataset', 'build']],
  ['dataset list', ['dataset', 'list']],
  ['doctor', ['doctor']],
  ['rerun', ['rerun', 'some-workflow']],
  ['report', ['report', 'some-run']],
  ['export', ['export', 'inspect', 'some-run']],
  ['workers', ['workers']],
];

describe('a verb run while the local stack is down', { timeout: 180_000 }, () => {
  it.each(VERBS)('%s says so in one line, exits 3, at once', async (_family, argv) => {
    const boot = await bootMs();
    const t0 = Date.now();
    const r = await runCli(argv, env, 60_000);
    const ms = Date.now() - t0;
    const lines = r.stderr.trim().split('\n');
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^pau ${argv[0]}: the local stack is not running: Temporal \\(127\\.0\\.0\\.1:${env.PAU_TEMPORAL_PORT}\\) and Postgres`),
    );
    expect(lines[0]).toContain('start it with `npm run pau -- stack up` (or `npm start`)');
    expect(r.stdout).toBe('');
    expect(r.code).toBe(EXIT_SERVICE_DOWN);
    expect(ms, `boot ${boot} ms`).toBeLessThan(bound(boot));
  });

  it('the retired `calibrate ladder` needs no stack: one line naming what replaced it, exit 2', async () => {
    const r = await runCli(['calibrate', 'ladder', '--judge', 'mock-oracle'], env, 60_000);
    expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
    expect(r.stderr.trim()).toMatch(
      /^pau calibrate: `ladder` is retired \(2026-12-07\): the judge card measures the same ladder .*`npm run pau -- calibrate judge --judge M`$/,
    );
    expect(r.stdout).toBe('');
    expect(r.code).toBe(2);
  });

  it('a worker entry point run without the CLI says so too', async () => {
    const boot = await bootMs();
    const t0 = Date.now();
    const r = await runScript('workers/pau-sandbox.ts', [], env, 60_000);
    expect(r.stderr.trim()).toMatch(/^workers: the local stack is not running: Temporal .* start it with `npm run pau -- stack up`/);
    expect(r.code).toBe(EXIT_SERVICE_DOWN);
    expect(Date.now() - t0, `boot ${boot} ms`).toBeLessThan(bound(boot));
  });

  it('only a service the verb needs stops it: `runs list` with Postgres up and Temporal down lists the rows as recorded', async () => {
    // The test stack's real Postgres (DATABASE_URL of the global setup), Temporal where nothing listens.
    const r = await runCli(['runs', 'list'], { ...env, DATABASE_URL: process.env.DATABASE_URL, PAU_STATE_DIR: process.env.PAU_STATE_DIR }, 90_000);
    expect(r.stderr.trim()).toMatch(
      /^runs: Temporal is not reachable \(the local stack is not running: Temporal \(127\.0\.0\.1:\d+\) refuses connections; .*\); statuses are as last recorded in Postgres$/,
    );
    expect(r.code).toBe(0);
  });

  it('an external service named in the environment is not started by us: the line names its variable', async () => {
    const port = await freePort();
    const r = await runCli(['runs', 'list'], { ...env, DATABASE_URL: `postgres://u:secret@127.0.0.1:${port}/pau` }, 60_000);
    // Temporal is the local stack's here (also down): both are named, each with what starts it.
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr.trim()).toMatch(
      new RegExp(`; Postgres at 127\\.0\\.0\\.1:${port} \\(DATABASE_URL\\) is not reachable: connection refused; start that server or fix DATABASE_URL$`),
    );
    expect(r.stderr).not.toContain('secret');
    expect(r.code).toBe(EXIT_SERVICE_DOWN);
  });
});

describe('stackDownIn', () => {
  it('finds a ServiceDownError among the causes, and ignores errors that are not about connecting', async () => {
    const down = new ServiceDownError([{ service: 'temporal', host: '127.0.0.1', port: 1, external: false, reason: 'connection refused' }]);
    expect(await stackDownIn(new Error('wrapped', { cause: down }))).toEqual(down.down);
    expect(await stackDownIn(new Error('no such run'))).toBeUndefined();
  });
});
