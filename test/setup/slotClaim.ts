// Which worker slot (test/setup/workerSlots.ts) a running integration file takes. Not VITEST_POOL_ID: vitest 4.1.12
// hands the same id to two files at once after an earlier project group (any group before it, such as the pure
// tier), because the earlier group's last task frees its id after the next group has reset the ids. Two
// files then shared one namespace, database and mock server, and served each other's workflows (docs/testing.md).
// So each file's process claims a slot itself: a lock file per slot, `slot-<k>.pid`, holding the process's pid,
// written under a short directory lock, freed when the process exits and taken over once its owner is gone.
import fs from 'node:fs';
import path from 'node:path';
import { readPid, runningNotZombie, sleep } from '../../platform/process/processes';

const lockFile = (dir: string, k: number) => path.join(dir, `slot-${k}.pid`);

/** The pid holding slot k, or undefined when the slot is free (no lock, or its owner is gone or a zombie). */
export function slotHolder(dir: string, k: number): number | undefined {
  const pid = readPid(lockFile(dir, k));
  return pid !== undefined && runningNotZombie(pid) ? pid : undefined;
}

/** Runs `fn` while holding `<dir>/.claiming` (mkdir is atomic); a lock left by a process killed inside it expires. */
async function underDirLock<T>(dir: string, fn: () => T): Promise<T> {
  const mutex = path.join(dir, '.claiming');
  for (;;) {
    try {
      fs.mkdirSync(mutex);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const age = Date.now() - (fs.statSync(mutex, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 10_000) fs.rmSync(mutex, { recursive: true, force: true });
      else await sleep(10);
    }
  }
  try {
    return fn();
  } finally {
    fs.rmSync(mutex, { recursive: true, force: true });
  }
}

export interface ClaimOptions {
  /** The claiming process (default this one); its slot is freed when it exits. */
  pid?: number;
  /** How long to wait for a free slot: a file's process may still be exiting when vitest starts the next file. */
  waitMs?: number;
}

/**
 * Takes the lowest free slot of 1..`total` for `pid` and returns it. A slot is free when no live process holds it.
 * When this process is the claimant, its lock is removed as it exits.
 */
export async function claimSlot(dir: string, total: number, opts: ClaimOptions = {}): Promise<number> {
  const pid = opts.pid ?? process.pid;
  const deadline = Date.now() + (opts.waitMs ?? 30_000);
  fs.mkdirSync(dir, { recursive: true });
  for (;;) {
    const k = await underDirLock(dir, () => {
      for (let k = 1; k <= total; k++) {
        const holder = slotHolder(dir, k);
        if (holder === pid) return k;
        if (holder === undefined) {
          fs.writeFileSync(lockFile(dir, k), `${pid}\n`);
          return k;
        }
      }
      return undefined;
    });
    if (k !== undefined) {
      if (pid === process.pid) process.once('exit', () => releaseSlot(dir, k, pid));
      return k;
    }
    if (Date.now() > deadline) {
      const holders = Array.from({ length: total }, (_, i) => `${i + 1}: pid ${slotHolder(dir, i + 1)}`).join(', ');
      throw new Error(
        `no free worker slot of ${total} after ${opts.waitMs ?? 30_000} ms (${holders}): more files run at once than the global setup made slots for`,
      );
    }
    await sleep(50);
  }
}

/** Frees slot k if `pid` still holds it (synchronous: it runs in an exit handler). */
export function releaseSlot(dir: string, k: number, pid = process.pid): void {
  if (readPid(lockFile(dir, k)) === pid) fs.rmSync(lockFile(dir, k), { force: true });
}
