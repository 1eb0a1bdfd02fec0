// The one connection module: a pg Pool wrapped by drizzle, created once per process.
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { databaseUrl } from '../config/services';
// No schema handed to drizzle: nothing uses its relational `db.query` API, and without it a module that
// needs one table loads that table's file, not all of them (callers import from db/schema/<domain>.ts).
export type Db = NodePgDatabase<Record<string, never>>;

export interface DbHandle {
  db: Db;
  pool: pg.Pool;
  close(): Promise<void>;
}

/**
 * Options every pool in the project uses. keepAlive: a connection to a server that vanished without
 * closing it (a network partition, a host that died) is found dead by TCP instead of hanging forever.
 */
export const POOL_DEFAULTS = { keepAlive: true, keepAliveInitialDelayMillis: 10_000 } as const satisfies pg.PoolConfig;

/**
 * Makes a pool survive its server going away. pg-pool listens for errors only on idle clients: a client that
 * is checked out (a transaction between queries, a connection held for an advisory lock) and loses its
 * connection with no query running emits an `error` event nobody handles, and Node ends the process. A
 * Postgres restart then killed every worker that held such a client (the chaos run's stall after the
 * postmaster kill). Every client gets a listener for its whole life; its next query fails ("not
 * queryable"), which the caller handles like any lost connection, and the pool drops it on release.
 */
export function surviveServerLoss(pool: pg.Pool, label: string): pg.Pool {
  pool.on('error', (err) => console.error(`${label}: idle connection lost: ${err.message}`));
  pool.on('connect', (client) => {
    client.on('error', (err) => console.error(`${label}: connection lost: ${err.message}`));
  });
  return pool;
}

export function connect(url: string = databaseUrl(), max = 10): DbHandle {
  const pool = surviveServerLoss(new pg.Pool({ ...POOL_DEFAULTS, connectionString: url, max, connectionTimeoutMillis: 10_000 }), 'postgres pool');
  const db = drizzle(pool);
  return { db, pool, close: () => pool.end() };
}

let shared: DbHandle | undefined;
/** The process-wide handle (activities share it). */
export function getDb(): Db {
  shared ??= connect();
  return shared.db;
}

export async function closeSharedDb(): Promise<void> {
  if (shared) {
    const h = shared;
    shared = undefined;
    await h.close();
  }
}
