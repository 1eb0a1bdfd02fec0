// The closing line counts every failure, including those outside a test: vitest runs the fixture suites of
// test/fixtures/brokenSuites (each fails in its own way) and the line it ends with is read as CI reads it.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../config/env';

const FIXTURES = path.join(PROJECT_ROOT, 'test', 'fixtures', 'brokenSuites');
const VITEST = path.join(PROJECT_ROOT, 'node_modules', 'vitest', 'vitest.mjs');

interface Run {
  code: number | null;
  stdout: string;
  closing: { passed: number; failed: number; skipped: number };
}

/** Runs vitest on the fixture suites matching `include`; the closing line must be the last line it prints. */
function runFixtures(include: string, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [VITEST, 'run'], {
      cwd: FIXTURES,
      env: { ...process.env, PAU_FIXTURE_SUITES: include, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', (code) => {
      const last = stdout.trimEnd().split('\n').at(-1) ?? '';
      const m = /^tests: (\d+) passed, (\d+) failed, (\d+) skipped$/.exec(last);
      if (!m) return reject(new Error(`no closing line at the end of:\n${stdout}`));
      resolve({ code, stdout, closing: { passed: Number(m[1]), failed: Number(m[2]), skipped: Number(m[3]) } });
    });
  });
}

describe('the closing line', () => {
  it('a passing run: its tests counted, 0 failed, exit 0', async () => {
    const run = await runFixtures('passes.fixture.ts');
    expect(run.closing).toEqual({ passed: 2, failed: 0, skipped: 1 });
    expect(run.code).toBe(0);
  }, 60_000);

  it('a file that did not load, hooks that failed and an error outside any test each count as failed, and are named', async () => {
    const run = await runFixtures('*.fixture.ts');
    // passes (2 passed, 1 skipped), failsToLoad (1), beforeAllFails (1; its 2 tests skipped), afterAllFails (1 passed,
    // 1), testFails (1 failing test), unhandled (1 passed, 1).
    expect(run.closing).toEqual({ passed: 4, failed: 5, skipped: 3 });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('failed outside a test: failsToLoad.fixture.ts: this file does not load');
    expect(run.stdout).toContain('failed outside a test: beforeAllFails.fixture.ts: port 34519 is taken by another program');
    expect(run.stdout).toContain('failed outside a test: afterAllFails.fixture.ts: closing failed');
    expect(run.stdout).toContain('failed outside a test: error outside any test: thrown outside a test');
  }, 60_000);

  it('a global setup that failed: no test ran, and the line still says failed', async () => {
    const run = await runFixtures('passes.fixture.ts', { PAU_FIXTURE_GLOBAL_SETUP_FAILS: '1' });
    expect(run.closing).toEqual({ passed: 0, failed: 1, skipped: 0 });
    expect(run.code).toBe(1);
  }, 60_000);
});
