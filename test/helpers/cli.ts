// Runs the real `pau` CLI (or another project script) as a child process, as a user would.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from '../../config/env';
import { compiledEntry } from './cliBuild';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Node's arguments for `script`: its compiled entry (test/helpers/cliBuild.ts), else the source with tsx's loader
 * (`node --import tsx` rather than the tsx wrapper: one process, so a signal reaches the real program).
 */
async function nodeArgs(script: string): Promise<string[]> {
  const compiled = await compiledEntry(script);
  return compiled ? [compiled] : ['--import', 'tsx', path.join(PROJECT_ROOT, script)];
}

export async function runScript(script: string, args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 120_000): Promise<CliResult> {
  const entry = await nodeArgs(script);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...entry, ...args], { cwd: PROJECT_ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (killed) {
        // The exit code is then null and says nothing: leave what the program had printed in the test's log.
        stderr += `\n[killed by the test after ${timeoutMs} ms]`;
        console.error(
          `${script} ${args.join(' ')}: killed after ${timeoutMs} ms\n--- stdout (last 4000 characters)\n${stdout.slice(-4000)}\n--- stderr (last 4000 characters)\n${stderr.slice(-4000)}`,
        );
      }
      resolve({ code, stdout, stderr });
    });
  });
}

export const runCli = (args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs?: number) => runScript('scripts/pau.ts', args, env, timeoutMs);

/** Starts a long-running script (a worker process) and resolves once `readyText` appears on stdout. */
export async function startScript(script: string, readyText: string, env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000): Promise<ChildProcess> {
  const entry = await nodeArgs(script);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, entry, {
      cwd: PROJECT_ROOT,
      env: { ...process.env, ...env },
      detached: false,
    });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${script} not ready after ${timeoutMs} ms:\n${out}`)), timeoutMs);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes(readyText)) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code} before ready:\n${out}`));
    });
  });
}
