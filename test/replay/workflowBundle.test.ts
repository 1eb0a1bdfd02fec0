// The workers build their workflow bundle in a child process (workers/workflowBundle.ts, for memory) and keep
// it in the machine's cache, named by a hash of its sources. The bundle must be the code the in-process
// bundler makes, made lean (platform/build/leanBundle.ts; the recorded histories replay on it:
// replay.test.ts), a cached bundle must be the one a
// fresh build makes, and a change to any source the bundle is made from must name a new bundle.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { afterAll, expect, it } from 'vitest';
import { reloadEnv } from '../../config/env';
import { leanBundleCode } from '../../platform/build/leanBundle';
import { bundleWorkflowsInChild, WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH, workflowBundleFor, workflowBundleKey } from '../../workers/workflowBundle';

const quiet = () => undefined;
const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-bundle-cache-'));
const before = process.env.PAU_CACHE_DIR;
afterAll(() => {
  if (before === undefined) delete process.env.PAU_CACHE_DIR;
  else process.env.PAU_CACHE_DIR = before;
  reloadEnv();
  fs.rmSync(cache, { recursive: true, force: true });
});

it('the bundle built in a child process is the in-process bundle; the cached one is the same code', async () => {
  process.env.PAU_CACHE_DIR = cache;
  reloadEnv();
  const [child, inProcess] = await Promise.all([
    bundleWorkflowsInChild(),
    bundleWorkflowCode({
      workflowsPath: WORKFLOWS_PATH,
      workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
      logger: { log: quiet, trace: quiet, debug: quiet, info: quiet, warn: quiet, error: quiet },
    }),
  ]);
  expect(child.code).toBe(leanBundleCode(inProcess.code));
  const file = path.join(cache, 'workflow-bundles', `${workflowBundleKey()}.js`);
  expect(fs.existsSync(file)).toBe(false);
  const built = await workflowBundleFor(); // not cached: built in a child, then stored
  expect(built.code).toBe(child.code);
  expect(fs.readFileSync(file, 'utf8')).toBe(child.code);
  fs.writeFileSync(file, `${child.code}\n// from the cache`); // the next start reads the file, builds nothing
  expect((await workflowBundleFor()).code).toBe(`${child.code}\n// from the cache`);
}, 120_000);

it('a change to a workflow or domain file, the entry, the lockfile or tsconfig names a new bundle; others do not', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-bundle-key-'));
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  };
  try {
    write('workflows/index.ts', 'export * from "./a";');
    write('workflows/a.ts', 'export const a = 1;');
    write('domain/deep/b.ts', 'export const b = 1;');
    write('activities/c.ts', 'export const c = 1;');
    write('package-lock.json', '{}');
    write('tsconfig.json', '{}');
    const entry = path.join(root, 'workflows/index.ts');
    const key = () => workflowBundleKey(entry, root);
    const k0 = key();
    expect(key()).toBe(k0);
    write('activities/c.ts', 'export const c = 2;'); // not bundled: activities are reached by type only
    expect(key()).toBe(k0);
    const seen = new Set([k0]);
    for (const [rel, text] of [
      ['domain/deep/b.ts', 'export const b = 2;'],
      ['workflows/a.ts', 'export const a = 2;'],
      ['workflows/new.ts', 'export const n = 1;'],
      ['package-lock.json', '{"v":2}'],
      ['tsconfig.json', '{"v":2}'],
    ] as const) {
      write(rel, text);
      const k = key();
      expect(seen.has(k), `${rel} changed, the key did not`).toBe(false);
      seen.add(k);
    }
    expect(workflowBundleKey(path.join(root, 'workflows/a.ts'), root)).not.toBe(key()); // another entry
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
