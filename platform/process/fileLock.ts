// A lock file shared by every process (and every checkout) of the machine: created with O_EXCL, holding
// the owner's pid; a lock whose owner died is taken over. Used around model installs and server starts.
import fs from 'node:fs';
import path from 'node:path';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function ownerOf(file: string): number | undefined {
  try {
    const pid = Number.parseInt(fs.readFileSync(file, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

export class LockTimeoutError extends Error {
  override name = 'LockTimeoutError';
}

export interface LockOptions {
  timeoutMs?: number;
  /** Called about every 5 s while another process holds the lock. */
  onWait?: (holderPid: number | undefined) => void;
}

/** Runs `fn` while holding `file` (a lock file path); waits for another holder, takes over a dead one's. */
export async function withFileLock<T>(file: string, fn: () => Promise<T>, opts: LockOptions = {}): Promise<T> {
  // The owner's alone: lock files sit in the private state dir (server starts) and in the user's cache.
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const deadline = Date.now() + (opts.timeoutMs ?? 30 * 60_000);
  let lastWaitNote = 0;
  for (;;) {
    try {
      const fd = fs.openSync(file, 'wx', 0o600);
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = ownerOf(file);
    if (holder === undefined) {
      // Just created and not yet written, or written by a crashed process: give it a moment, then take it.
      const age = Date.now() - (fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 5_000) fs.rmSync(file, { force: true });
    } else if (holder !== process.pid && !alive(holder)) {
      fs.rmSync(file, { force: true });
      continue;
    }
    if (Date.now() > deadline) throw new LockTimeoutError(`timed out waiting for ${file} (held by pid ${holder ?? '?'})`);
    if (opts.onWait && Date.now() - lastWaitNote > 5_000) {
      lastWaitNote = Date.now();
      opts.onWait(holder);
    }
    await new Promise((r) => setTimeout(r, 250 + Math.random() * 250));
  }
  try {
    return await fn();
  } finally {
    if (ownerOf(file) === process.pid) fs.rmSync(file, { force: true });
  }
}
