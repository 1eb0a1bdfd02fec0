// Runs the real `pau` CLI (or another project script) as a child process, as a user would.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from '../../config/env';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

// `node --import tsx` rather than the tsx wrapper: one process, so a signal reaches the real program.
const NODE_ARGS = ['--import', 'tsx'];

export function runScript(script: string, args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 120_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...NODE_ARGS, path.join(PROJECT_ROOT, script), ...args], { cwd: PROJECT_ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export const runCli = (args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs?: number) => runScript('scripts/pau.ts', args, env, timeoutMs);

/** Starts a long-running script (a worker process) and resolves once `readyText` appears on stdout. */
export function startScript(script: string, readyText: string, env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...NODE_ARGS, path.join(PROJECT_ROOT, script)], {
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
