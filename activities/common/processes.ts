// Detached background processes with pid files, so `stack down` stops exactly what `stack up` started.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** Running and not a zombie (Linux /proc; an orphan re-parented to a container's init may never be reaped). */
export function runningNotZombie(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function readPid(pidFile: string): number | undefined {
  try {
    const pid = Number.parseInt(fs.readFileSync(pidFile, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The pid in pidFile when that process still runs; removes a stale file. */
export function runningPid(pidFile: string): number | undefined {
  const pid = readPid(pidFile);
  if (pid !== undefined && isAlive(pid)) return pid;
  if (pid !== undefined) fs.rmSync(pidFile, { force: true });
  return undefined;
}

/** Runs `fn` (synchronous: a spawn, a file write) with umask 077, so what it and its children create is private. */
export function withPrivateUmask<T>(fn: () => T): T {
  const previous = process.umask(0o077);
  try {
    return fn();
  } finally {
    process.umask(previous);
  }
}

export function spawnDetached(cmd: string, args: string[], opts: { logFile: string; pidFile: string; cwd?: string; env?: NodeJS.ProcessEnv }): number {
  fs.mkdirSync(path.dirname(opts.logFile), { recursive: true });
  const out = fs.openSync(opts.logFile, 'a');
  const child = spawn(cmd, args, {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    detached: true,
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  if (child.pid === undefined) throw new Error(`could not start ${cmd}`);
  child.unref();
  fs.writeFileSync(opts.pidFile, String(child.pid));
  return child.pid;
}

/** SIGTERM, then SIGKILL after graceMs. Resolves once the process is gone. */
export async function stopPid(pid: number, graceMs = 10_000): Promise<void> {
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid, sig); // the whole process group (detached children lead their own group)
    } catch {
      try {
        process.kill(pid, sig);
      } catch {
        /* already gone */
      }
    }
  };
  signal('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await sleep(100);
  if (isAlive(pid)) signal('SIGKILL');
  while (isAlive(pid)) await sleep(50);
}

/** Stops the process a pid file names (see stopPid) and removes the pid file. */
export async function stopPidFile(pidFile: string): Promise<'stopped' | 'not running'> {
  const pid = runningPid(pidFile);
  if (pid === undefined) return 'not running';
  await stopPid(pid);
  fs.rmSync(pidFile, { force: true });
  return 'stopped';
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function portOpen(port: number, host = '127.0.0.1', timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** A free loopback port chosen by the OS (for tests that run beside a developer's stack). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const addr = server.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number, logFile?: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(200);
  }
  const tail =
    logFile && fs.existsSync(logFile) ? `\n--- last lines of ${logFile} ---\n${fs.readFileSync(logFile, 'utf8').split('\n').slice(-20).join('\n')}` : '';
  throw new Error(`${what} did not become ready within ${Math.round(timeoutMs / 1000)}s${tail}`);
}
