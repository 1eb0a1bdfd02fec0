// The executor's own tests (sandbox/tests: unittest, also collected by pytest), run with the sandbox's
// interpreter: pre-forked spares over the real wire protocol, without Node.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';
import { env, PROJECT_ROOT } from '../../config/env';

it('python -m unittest sandbox/tests passes', () => {
  const r = spawnSync(env().PAU_PYTHON, ['-m', 'unittest', 'discover', '-s', path.join(PROJECT_ROOT, 'sandbox', 'tests'), '-v'], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  const out = `${r.stdout}\n${r.stderr}`;
  if (r.status !== 0) console.log(out.slice(-6000));
  expect(r.status).toBe(0);
  expect(out).toMatch(/Ran [1-9]\d* tests/);
  expect(out).toMatch(/\nOK\b/);
}, 150_000);
