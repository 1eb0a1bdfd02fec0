// The workflow bundle of the `pau` worker, built by webpack in a short-lived child process. Built in the
// worker's own process (Worker.create with workflowsPath), webpack's modules and the heap it grew stay
// there for the worker's whole life: about 150 MB of RSS out of ~490 in bench:peer's Node process. The
// child writes the bundle's code to stdout and exits; the worker gets the same code as before.
// A build costs ~4 s of wall and ~5 CPU-s on this machine, paid by every worker start (and by every test
// file that starts a worker), so bundles are kept in the machine's cache (<cache dir>/workflow-bundles),
// named by a hash of everything the bundle is made from: the entry, the interceptors, every file under
// workflows/ and domain/ (the only code a workflow may import at run time: the rule file), the lockfile
// and tsconfig.json. The bundle holds no absolute path, so checkouts with the same sources share one.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';
import { cacheDir, PROJECT_ROOT } from '../config/env';
import { leanBundleCode } from '../platform/build/leanBundle';

export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));
/** Workflow interceptors every bundle includes: the payload guard (refuses input the codec could not authenticate). */
export const WORKFLOW_INTERCEPTOR_MODULES = [fileURLToPath(new URL('../workflows/common/payloadGuard.ts', import.meta.url))];
const SELF = fileURLToPath(import.meta.url);
/** Bumped when what goes into a bundle changes in a way the hashed files do not show (2: leanBundleCode). */
const CACHE_FORMAT = 2;
/** Bundles kept in the cache (newest first); ~4 MB each. */
const KEEP = 8;

export interface WorkflowBundle {
  code: string;
}

/** Bundles the workflows of `workflowsPath` in a child process: this file, run by this Node with tsx's loader. */
export function bundleWorkflowsInChild(workflowsPath: string = WORKFLOWS_PATH): Promise<WorkflowBundle> {
  return new Promise((resolve, reject) => {
    // Not this process's execArgv: under vitest it has no TypeScript loader, under --inspect a port to fight over.
    const child = spawn(process.execPath, ['--import', 'tsx', SELF, workflowsPath], { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => {
      err = (err + d.toString()).slice(-4000);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const text = Buffer.concat(out).toString('utf8');
      if (code === 0 && text.length > 0) resolve({ code: text });
      else reject(new Error(`bundling the workflows (${SELF}) failed with exit code ${code}:\n${err}`));
    });
  });
}

function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && /\.(ts|js|mjs|cjs|json)$/.test(d.name))
    .map((d) => path.join(d.parentPath, d.name));
}

/** The cache key of a bundle: a hash of the files it is made from (paths relative to the project root). */
export function workflowBundleKey(workflowsPath: string = WORKFLOWS_PATH, root: string = PROJECT_ROOT): string {
  const files = new Set([
    ...sourceFiles(path.join(root, 'workflows')),
    ...sourceFiles(path.join(root, 'domain')),
    workflowsPath,
    // an entry outside workflows/ (the tests' piece workflows) may import its neighbours
    ...(path.relative(path.join(root, 'workflows'), workflowsPath).startsWith('..') ? sourceFiles(path.dirname(workflowsPath)) : []),
    ...WORKFLOW_INTERCEPTOR_MODULES,
    path.join(root, 'package-lock.json'),
    path.join(root, 'tsconfig.json'),
  ]);
  const h = createHash('sha256').update(`format ${CACHE_FORMAT}\nentry ${path.relative(root, workflowsPath)}\n`);
  for (const m of WORKFLOW_INTERCEPTOR_MODULES) h.update(`interceptor ${path.relative(root, m)}\n`);
  for (const f of [...files].sort()) {
    h.update(`file ${path.relative(root, f)}\n`);
    h.update(fs.existsSync(f) ? fs.readFileSync(f) : 'absent');
    h.update('\n');
  }
  return h.digest('hex').slice(0, 32);
}

/** The workflow bundle: the cached one when its sources are unchanged, else built in a child and cached. */
export async function workflowBundleFor(workflowsPath: string = WORKFLOWS_PATH): Promise<WorkflowBundle> {
  const dir = path.join(cacheDir(), 'workflow-bundles');
  const file = path.join(dir, `${workflowBundleKey(workflowsPath)}.js`);
  try {
    const code = fs.readFileSync(file, 'utf8');
    if (code.length > 0) {
      const now = new Date();
      fs.utimesSync(file, now, now); // recently used: kept by the pruning below
      return { code };
    }
  } catch {
    // not cached (or unreadable): build it
  }
  const bundle = await bundleWorkflowsInChild(workflowsPath);
  try {
    fs.mkdirSync(dir, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, bundle.code);
    fs.renameSync(tmp, file); // atomic: a concurrent reader sees the whole bundle or none
    prune(dir);
  } catch {
    // a read-only or full cache only costs the next start a rebuild
  }
  return bundle;
}

function prune(dir: string): void {
  const bundles = fs
    .readdirSync(dir)
    .filter((n) => n.endsWith('.js'))
    .map((n) => ({ p: path.join(dir, n), t: fs.statSync(path.join(dir, n)).mtimeMs }))
    .sort((a, b) => b.t - a.t);
  for (const b of bundles.slice(KEEP)) fs.rmSync(b.p, { force: true });
}

async function main(): Promise<void> {
  const quiet = () => undefined;
  const toStderr = (message: string) => process.stderr.write(`${message}\n`);
  const { code } = await bundleWorkflowCode({
    workflowsPath: process.argv[2] ?? WORKFLOWS_PATH,
    workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
    logger: { log: quiet, trace: quiet, debug: quiet, info: quiet, warn: toStderr, error: toStderr },
  });
  process.stdout.write(leanBundleCode(code));
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
