// Per-model concurrency capped across ALL workers: a model with maxConcurrency N has N slots, each a
// Postgres session-level advisory lock (key pair: hash of the model name, slot number). A call holds one
// slot's lock on a dedicated connection for its duration. A worker that dies drops its connection and
// Postgres releases its locks at once, so no slot leaks and no lease expiry has to be waited out.
import pg from 'pg';
import { databaseUrl } from '../../config/services';
import { sha256 } from './requestHash';

/** A 31-bit key for a model name (the first advisory-lock key; the slot is the second). */
export function modelLockKey(model: string): number {
  return Number.parseInt(sha256(`pau-llm-slot:${model}`).slice(0, 8), 16) & 0x7fffffff;
}

export interface Slot {
  slot: number;
  release(): Promise<void>;
}

let pool: pg.Pool | undefined;
function slotPool(): pg.Pool {
  // Holders keep a connection each; sized for the caps in use, not the process's activity concurrency.
  if (!pool) {
    pool = new pg.Pool({ connectionString: databaseUrl(), max: 64, idleTimeoutMillis: 30_000 });
    pool.on('error', (err) => console.error(`llm slot pool: ${err.message}`));
  }
  return pool;
}

export async function closeSlotPool(): Promise<void> {
  const p = pool;
  pool = undefined;
  await p?.end();
}

/**
 * Waits for a free slot of `model` (capacity `max`), polling with jitter; `onWait` runs between polls
 * (the activity heartbeats there, so cancellation reaches it). Throws if `signal` aborts.
 */
export async function acquireSlot(model: string, max: number, opts: { signal?: AbortSignal; onWait?: () => void; pollMs?: number } = {}): Promise<Slot> {
  const key = modelLockKey(model);
  const poll = opts.pollMs ?? 200;
  for (;;) {
    const client = await slotPool().connect();
    let held = false;
    let broken = false;
    try {
      const start = Math.floor(Math.random() * max);
      for (let i = 0; i < max; i++) {
        const slot = (start + i) % max;
        const r = await client.query<{ ok: boolean }>('select pg_try_advisory_lock($1, $2) as ok', [key, slot]);
        if (r.rows[0]?.ok) {
          held = true;
          return {
            slot,
            release: async () => {
              try {
                await client.query('select pg_advisory_unlock($1, $2)', [key, slot]);
                client.release();
              } catch {
                client.release(true); // drop the connection: that releases the lock too
              }
            },
          };
        }
      }
    } catch (err) {
      broken = true;
      throw err;
    } finally {
      if (!held) client.release(broken);
    }
    if (opts.signal?.aborted) throw opts.signal.reason instanceof Error ? opts.signal.reason : new Error('cancelled while waiting for a model slot');
    opts.onWait?.();
    await new Promise((r) => setTimeout(r, poll / 2 + Math.random() * poll));
  }
}

/** How many slots of `model` are held right now, across all workers (for tests and status). */
export async function heldSlots(model: string, max: number): Promise<number> {
  const r = await slotPool().query<{ n: string }>(
    `select count(*) as n from pg_locks where locktype = 'advisory' and classid::bigint = $1 and objid::bigint < $2 and granted`,
    [modelLockKey(model), max],
  );
  return Number(r.rows[0]?.n ?? 0);
}
