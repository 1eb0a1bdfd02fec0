// Applies committed migrations. Idempotent, and safe when several processes start at once: an advisory
// lock, held on the same connection that migrates, serialises them.
import path from 'node:path';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { PROJECT_ROOT } from '../config/env';
import { databaseUrl } from '../config/services';

const MIGRATION_LOCK = 7_233_001;

export async function runMigrations(url: string = databaseUrl()): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await migrate(drizzle(client), { migrationsFolder: path.join(PROJECT_ROOT, 'db', 'migrations') });
  } finally {
    await client.end().catch(() => undefined); // closing the session releases the lock
  }
}
