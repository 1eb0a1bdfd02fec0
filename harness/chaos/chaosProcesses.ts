// What the chaos scripts share: a log line with the time, and a supervisor for the processes they start
// (workers, model servers): each is a direct `node --import tsx` child (so SIGKILL reaches the program, not a
// wrapper), logs to <dir>/<name>.log, and any exit that chaos did not cause is recorded as a finding.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../config/env';

export function chaosLog(prefix: string): (s: string) => void {
  return (s) => console.log(`${prefix} ${new Date().toISOString().slice(11, 19)}  ${s}`);
}

export interface ChaosProcesses {
  /** Starts `script` and resolves once `readyText` appears on its stdout. */
  spawnTs(script: string, args: string[], env: NodeJS.ProcessEnv, readyText: string, name: string): Promise<ChildProcess>;
  /** SIGKILL on purpose (not a finding); resolves when it has exited. */
  kill9(child: ChildProcess | undefined): Promise<void>;
  /** SIGKILL everything still running. */
  killAll(): Promise<void>;
  /** Processes that exited without chaos killing them. */
  diedByThemselves: string[];
}

/** readyTimeoutMs: how long a started process may take to print its ready text (a loaded machine needs more). */
export function chaosProcesses(dir: string, log: (s: string) => void, readyTimeoutMs = 90_000): ChaosProcesses {
  const children = new Set<ChildProcess>();
  const killed = new WeakSet<ChildProcess>();
  const diedByThemselves: string[] = [];

  function spawnTs(script: string, args: string[], env: NodeJS.ProcessEnv, readyText: string, name: string): Promise<ChildProcess> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', path.join(PROJECT_ROOT, script), ...args], { cwd: PROJECT_ROOT, env });
      children.add(child);
      const logFile = fs.createWriteStream(path.join(dir, `${name}.log`), { flags: 'a' });
      let out = '';
      const timer = setTimeout(() => reject(new Error(`${name} not ready after ${readyTimeoutMs / 1000} s:\n${out.slice(-2000)}`)), readyTimeoutMs);
      const onData = (d: Buffer) => {
        logFile.write(d);
        if (out.length < 100_000) out += d.toString();
        if (out.includes(readyText)) {
          clearTimeout(timer);
          resolve(child);
        }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', (d: Buffer) => logFile.write(d));
      child.on('exit', (code, signal) => {
        children.delete(child);
        clearTimeout(timer);
        if (!killed.has(child)) {
          diedByThemselves.push(`${name} (${signal ?? `exit ${code}`}; see ${path.join(dir, `${name}.log`)})`);
          log(`${name} DIED BY ITSELF (${signal ?? `exit ${code}`})`);
        }
      });
    });
  }

  async function kill9(child: ChildProcess | undefined): Promise<void> {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    killed.add(child);
    child.kill('SIGKILL');
    await exited;
  }

  return {
    spawnTs,
    kill9,
    async killAll() {
      for (const c of [...children]) await kill9(c);
    },
    diedByThemselves,
  };
}
