// The one connection module: a pg Pool wrapped by drizzle, created once per process.
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { databaseUrl } from '../config/services';
import * as schema from './schema/index';

export type Db = NodePgDatabase<typeof schema>;

export interface DbHandle {
  db: Db;
  pool: pg.Pool;
  close(): Promise<void>;
}

export function connect(url: string = databaseUrl(), max = 10): DbHandle {
  const pool = new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: 10_000 });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', (err) => console.error(`postgres pool: ${err.message}`));
  const db = drizzle(pool, { schema });
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
