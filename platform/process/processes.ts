// Detached background processes with pid files, so `stack down` stops exactly what `stack up` started.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { probe } from '../../config/serviceProbe';

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

/** Whether something accepts connections on the port now (config/serviceProbe.ts's probe, as a yes or no). */
export async function portOpen(port: number, host = '127.0.0.1', timeoutMs = 500): Promise<boolean> {
  return (await probe(host, port, timeoutMs)) === 'up';
}

/**
 * The first of `run` consecutive loopback ports that are free now, for a program that binds them later: one
 * that cannot listen on port 0 and report the port it got (Postgres, the Temporal dev server, a `stack up`
 * run by a test). Chosen outside the kernel's ephemeral range (net.ipv4.ip_local_port_range), which is where
 * every listen(0) and outgoing connection on the machine gets its port: a port the OS picked for us could be
 * handed to another program before ours bound it ("port 34519 is taken by another program"), one outside
 * that range only to a program asking for that very port. Start with retryOnPortCollision for that case.
 * Where the range is unknown or leaves no room below it, a port the OS picks.
 */
export async function freePort(run = 1): Promise<number> {
  const [low] = ephemeralRange();
  const floor = 16_384;
  if (low - run - floor >= 1_000) {
    for (let attempt = 0; attempt < 100; attempt++) {
      const base = floor + Math.floor(Math.random() * (low - run - floor));
      let free = true;
      for (let i = 0; i < run && free; i++) free = await canBind(base + i);
      if (free) return base;
    }
  }
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = await osPort();
    let free = base + run <= 65_536;
    for (let i = 1; i < run && free; i++) free = await canBind(base + i);
    if (free) return base;
  }
  throw new Error(`no run of ${run} free loopback ports found`);
}

/** net.ipv4.ip_local_port_range; Linux's default where it cannot be read. */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low && high) return [low, high];
  } catch {
    /* not Linux */
  }
  return process.platform === 'linux' ? [32_768, 60_999] : [1_024, 65_535];
}

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

function osPort(): Promise<number> {
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

/** What the starters here, Node and Postgres say when a port is taken. */
const PORT_TAKEN = /is taken by another program|EADDRINUSE|address already in use|could not bind/i;

/**
 * Runs `start`, which binds ports it chose with freePort, again (choosing anew) when one of them was taken
 * between the choice and the bind; `attempts` times at most, then fails saying so. Other errors end it at once.
 */
export async function retryOnPortCollision<T>(what: string, start: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (!PORT_TAKEN.test(message)) throw err;
      if (attempt >= attempts)
        throw new Error(`${what}: a port was taken before it could be bound, ${attempts} times in a row; the last: ${message}`, { cause: err });
      console.warn(`${what}: ${message.split('\n')[0]}; trying other ports (${attempt + 1}/${attempts})`);
    }
  }
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
