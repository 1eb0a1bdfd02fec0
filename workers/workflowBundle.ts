// The workflow bundle of the `pau` worker, built by webpack in a short-lived child process. Built in the
// worker's own process (Worker.create with workflowsPath), webpack's modules and the heap it grew stay
// there for the worker's whole life: about 150 MB of RSS out of ~490 in bench:peer's Node process. The
// child writes the bundle's code to stdout and exits; the worker gets the same code as before.
import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundleWorkflowCode, type WorkflowBundleOption } from '@temporalio/worker';
import { PROJECT_ROOT } from '../config/env';

export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));
/** Workflow interceptors every bundle includes: the payload guard (refuses input the codec could not authenticate). */
export const WORKFLOW_INTERCEPTOR_MODULES = [fileURLToPath(new URL('../workflows/common/payloadGuard.ts', import.meta.url))];
const SELF = fileURLToPath(import.meta.url);

/** Bundles the workflows in a child process: this file, run by this Node with tsx's loader. */
export function bundleWorkflowsInChild(): Promise<WorkflowBundleOption> {
  return new Promise((resolve, reject) => {
    // Not this process's execArgv: under vitest it has no TypeScript loader, under --inspect a port to fight over.
    const child = spawn(process.execPath, ['--import', 'tsx', SELF], { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
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

async function main(): Promise<void> {
  const quiet = () => undefined;
  const toStderr = (message: string) => process.stderr.write(`${message}\n`);
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
    logger: { log: quiet, trace: quiet, debug: quiet, info: quiet, warn: toStderr, error: toStderr },
  });
  process.stdout.write(code);
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
