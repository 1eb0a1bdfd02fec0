// A Postgres connection lost while a client is checked out and idle (what a Postgres restart does to a
// worker's transactions and to the model-slot connections held during a call) must not end the process:
// the client's next query fails, the pool drops it and serves new connections. Simulated on the shared
// test cluster with pg_terminate_backend (the same FATAL a postmaster exit sends), so it stops nothing
// other suites use.
import { describe, expect, it } from 'vitest';
import type pg from 'pg';
import { acquireSlot, closeSlotPool, heldSlots, modelLockKey } from '../../activities/llm/concurrency';
import { connect } from '../../db/client';
import { useStack } from '../helpers/stack';

const stack = useStack();

async function terminate(pid: number): Promise<void> {
  await stack.dbh.pool.query('select pg_terminate_backend($1)', [pid]);
}

/** Resolves when the client's connection has ended (the FATAL and the close have been read). */
function ended(client: pg.PoolClient): Promise<void> {
  return new Promise((r) => (client as unknown as NodeJS.EventEmitter).once('end', () => r()));
}

describe('a connection lost while checked out', () => {
  it('fails only its next query; the pool keeps serving', async () => {
    const h = connect(process.env.DATABASE_URL, 2);
    try {
      const client = await h.pool.connect();
      const pid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
      const gone = ended(client);
      await terminate(pid);
      // Without a listener on the checked-out client, this 'error' event ended the process here.
      await gone;
      await expect(client.query('select 1')).rejects.toThrow();
      client.release(true);
      expect((await h.pool.query<{ x: number }>('select 1 as x')).rows[0]?.x).toBe(1);
    } finally {
      await h.close();
    }
  });

  it('a model slot whose connection died is released cleanly and can be taken again', async () => {
    const model = `slot-loss-${Date.now().toString(36)}`;
    try {
      const slot = await acquireSlot(model, 1);
      // The slot's holder: the session holding this model's advisory lock (key pair: model key, slot).
      const pids = (
        await stack.dbh.pool.query<{ pid: number }>(
          `select pid from pg_locks where locktype = 'advisory' and granted and classid::bigint = $1 and objid::bigint = $2`,
          [modelLockKey(model), slot.slot],
        )
      ).rows;
      expect(pids).toHaveLength(1);
      for (const p of pids) await terminate(p.pid);
      for (let i = 0; i < 50 && (await heldSlots(model, 1)) > 0; i++) await new Promise((r) => setTimeout(r, 100));
      expect(await heldSlots(model, 1)).toBe(0);
      await slot.release(); // the unlock fails on the dead connection; the connection is dropped
      const again = await acquireSlot(model, 1);
      expect(again.slot).toBe(0);
      await again.release();
    } finally {
      await closeSlotPool();
    }
  });
});
