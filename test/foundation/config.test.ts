import { describe, expect, it } from 'vitest';
import { ConfigError, parseEnv, reloadEnv } from '../../config/env';
import { temporalUiUrl, workflowUiLink } from '../../config/services';
import { runCli } from '../helpers/cli';

describe('configuration', () => {
  it('applies defaults to an empty environment', () => {
    const e = parseEnv({});
    expect(e.PAU_TEMPORAL_PORT).toBe(7233);
    expect(e.PAU_TEMPORAL_UI_PORT).toBe(8233);
    expect(e.TEMPORAL_NAMESPACE).toBe('default');
    expect(e.TEMPORAL_ADDRESS).toBeUndefined();
  });

  it('links to the Web UI of the server in use: the local UI, a remote dev server, Temporal Cloud, or PAU_TEMPORAL_UI_URL', () => {
    const saved = { ...process.env };
    const ui = (vars: Record<string, string>) => {
      for (const k of ['TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'PAU_TEMPORAL_UI_URL', 'PAU_TEMPORAL_UI_PORT']) delete process.env[k];
      Object.assign(process.env, vars);
      reloadEnv();
      return temporalUiUrl();
    };
    try {
      expect(ui({})).toBe('http://127.0.0.1:8233');
      expect(ui({ TEMPORAL_ADDRESS: '10.0.0.5:7233', PAU_TEMPORAL_UI_PORT: '8080' })).toBe('http://10.0.0.5:8080');
      expect(ui({ TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233' })).toBe('https://cloud.temporal.io');
      expect(ui({ TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233', PAU_TEMPORAL_UI_URL: 'https://ui.example/' })).toBe('https://ui.example');
      expect(workflowUiLink('bench/r 1', 'abc')).toBe('https://ui.example/namespaces/default/workflows/bench%2Fr%201/abc/history');
      // The link names the namespace in use (a test file's worker slot has its own: test/setup/workerSlots.ts).
      ui({ TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233', PAU_TEMPORAL_UI_URL: 'https://ui.example/', TEMPORAL_NAMESPACE: 'research' });
      expect(workflowUiLink('bench/r 1', 'abc')).toBe('https://ui.example/namespaces/research/workflows/bench%2Fr%201/abc/history');
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
      reloadEnv();
    }
  });

  it('names each bad variable and what is wrong with it', () => {
    let error: unknown;
    try {
      parseEnv({ PAU_PG_PORT: 'five', DATABASE_URL: 'mysql://x/y', PAU_WORKER_SANDBOX_CONCURRENCY: '0' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const issues = (error as ConfigError).issues.map((i) => i.variable).sort();
    expect(issues).toEqual(['DATABASE_URL', 'PAU_PG_PORT', 'PAU_WORKER_SANDBOX_CONCURRENCY']);
    expect((error as ConfigError).message).toMatch(/PAU_PG_PORT: .*"five"/);
  });

  it('stops the CLI at start-up with the variable named, exit code 2', async () => {
    const r = await runCli(['stack', 'status'], { PAU_TEMPORAL_UI_PORT: '70000' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('PAU_TEMPORAL_UI_PORT');
    expect(r.stderr).toContain('70000');
  });

  it('rejects an unknown verb and a bad flag with usage, exit code 2', async () => {
    const unknown = await runCli(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown verb');
    const badFlag = await runCli(['workers', '--queue', 'nope']);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toMatch(/--queue/);
  });
});
