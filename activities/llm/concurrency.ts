// Per-model concurrency capped across ALL workers: a model with maxConcurrency N has N slots, each a
// Postgres session-level advisory lock (key pair: hash of the model name, slot number). A call holds one
// slot's lock on a dedicated connection for its duration. A worker that dies drops its connection and
// Postgres releases its locks at once, so no slot leaks and no lease expiry has to be waited out.
import pg from 'pg';
import { env } from '../../config/env';
import { databaseUrl } from '../../config/services';
import { POOL_DEFAULTS, surviveServerLoss } from '../../db/client';
import { sha256Hex } from '../../domain/common/hash';

/** A 31-bit key for a model name (the first advisory-lock key; the slot is the second). */
export function modelLockKey(model: string): number {
  return Number.parseInt(sha256Hex(`pau-llm-slot:${model}`).slice(0, 8), 16) & 0x7fffffff;
}

export interface Slot {
  slot: number;
  release(): Promise<void>;
}

let pool: pg.Pool | undefined;
function slotPool(): pg.Pool {
  // Holders keep a connection each; sized for the caps in use, not the process's activity concurrency.
  if (!pool) {
    // A holder's connection sits idle (checked out) for the whole model call: without the listener a
    // Postgres restart during calls ended the worker process.
    pool = surviveServerLoss(new pg.Pool({ ...POOL_DEFAULTS, connectionString: databaseUrl(), max: 64, idleTimeoutMillis: 30_000 }), 'llm slot pool');
  }
  return pool;
}

export async function closeSlotPool(): Promise<void> {
  const p = pool;
  pool = undefined;
  await p?.end();
}

/** What acquireSlot hands out when no slot is needed. */
const UNCAPPED: Slot = { slot: -1, release: async () => undefined };

/** At most PAU_LLM_MAX_CALLERS model calls run at once in the whole deployment: a cap of `max` is then never reached. */
export function capUnreachable(max: number): boolean {
  const callers = env().PAU_LLM_MAX_CALLERS;
  return callers !== undefined && callers <= max;
}

/** The second advisory-lock key of a model's gate (slots are 0..max-1). */
const GATE = -1;

/**
 * Waits for a free slot of `model` (capacity `max`); slots are granted first come, first served across all
 * workers. Waiters queue on the model's gate, a blocking advisory lock whose waiters Postgres grants in
 * arrival order; only the gate's holder polls for a free slot (with jitter), takes it and opens the gate
 * for the next. Without the gate, pollers raced at random and a request could starve behind later ones.
 * `onWait` runs every poll interval while waiting (the activity heartbeats there, so cancellation reaches
 * it). Throws if `signal` aborts (the queued gate request is cancelled in Postgres).
 */
export async function acquireSlot(model: string, max: number, opts: { signal?: AbortSignal; onWait?: () => void; pollMs?: number } = {}): Promise<Slot> {
  // A cap the deployment cannot reach (PAU_LLM_MAX_CALLERS ≤ max) needs no lock: five Postgres round
  // trips per call saved.
  if (capUnreachable(max)) return UNCAPPED;
  const key = modelLockKey(model);
  const poll = opts.pollMs ?? 200;
  const client = await slotPool().connect();
  const aborted = () => (opts.signal?.reason instanceof Error ? opts.signal.reason : new Error('cancelled while waiting for a model slot'));
  let gated = false;
  let held = false;
  let broken = false;
  try {
    // 1. The queue: at once when nobody waits, else in arrival order.
    if (!(await client.query<{ ok: boolean }>('select pg_try_advisory_lock($1, $2) as ok', [key, GATE])).rows[0]?.ok) {
      if (opts.signal?.aborted) throw aborted();
      const waitNote = setInterval(() => opts.onWait?.(), poll);
      const cancel = () =>
        void slotPool()
          .query('select pg_cancel_backend($1)', [(client as unknown as { processID: number }).processID])
          .catch(() => {});
      opts.signal?.addEventListener('abort', cancel, { once: true });
      try {
        await client.query('select pg_advisory_lock($1, $2)', [key, GATE]);
      } catch (err) {
        if (opts.signal?.aborted) throw aborted();
        throw err;
      } finally {
        clearInterval(waitNote);
        opts.signal?.removeEventListener('abort', cancel);
      }
    }
    gated = true;
    // 2. At the head of the queue: the first free slot.
    for (;;) {
      for (let slot = 0; slot < max; slot++) {
        const r = await client.query<{ ok: boolean }>('select pg_try_advisory_lock($1, $2) as ok', [key, slot]);
        if (!r.rows[0]?.ok) continue;
        held = true;
        await client.query('select pg_advisory_unlock($1, $2)', [key, GATE]);
        gated = false;
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
      if (opts.signal?.aborted) throw aborted();
      opts.onWait?.();
      await new Promise((r) => setTimeout(r, poll / 2 + Math.random() * poll));
    }
  } catch (err) {
    broken = true;
    throw err;
  } finally {
    // Dropping the connection releases whatever it holds (the gate, a slot taken before a failure).
    if (!held) client.release(broken || gated);
    else if (gated) client.release(true);
  }
}

/** How many requests of `model` are queued behind the gate right now, across all workers (for tests). */
export async function queuedForSlot(model: string): Promise<number> {
  const r = await slotPool().query<{ n: string }>(
    `select count(*) as n from pg_locks where locktype = 'advisory' and classid::bigint = $1 and objsubid = 2 and objid::bigint = $2 and not granted`,
    [modelLockKey(model), 2 ** 32 - 1],
  );
  return Number(r.rows[0]?.n ?? 0);
}

/** How many slots of `model` are held right now, across all workers (for tests and status). */
export async function heldSlots(model: string, max: number): Promise<number> {
  const r = await slotPool().query<{ n: string }>(
    `select count(*) as n from pg_locks where locktype = 'advisory' and classid::bigint = $1 and objid::bigint < $2 and granted`,
    [modelLockKey(model), max],
  );
  return Number(r.rows[0]?.n ?? 0);
}
