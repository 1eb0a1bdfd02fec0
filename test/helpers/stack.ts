// The one setup block of tests on the real stack: a Temporal client, a Postgres handle and (optionally)
// in-process workers, opened before the file's tests and closed after them. Fields are valid inside
// tests and hooks (after beforeAll).
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll } from 'vitest';
import { connectClient } from '../../config/temporal';
import { connect, type Db, type DbHandle } from '../../db/client';
import type { TaskQueueName } from '../../domain/temporal/queues';
import { startTestWorkers, type TestWorkers } from './workers';

export interface StackOptions {
  /** Queues to serve with in-process workers for the whole file (default none). */
  workers?: TaskQueueName[];
  /** Postgres pool size (default 2). */
  dbPool?: number;
  /** Runs after the connections are open and before the workers start (fixtures). */
  setup?: (stack: Stack) => Promise<void>;
  /** Timeout of the opening hook (default: vitest's hookTimeout). */
  timeoutMs?: number;
}

export interface Stack {
  readonly client: Client;
  readonly dbh: DbHandle;
  readonly db: Db;
}

export function useStack(opts: StackOptions = {}): Stack {
  let client: Client | undefined;
  let dbh: DbHandle | undefined;
  let workers: TestWorkers | undefined;
  const stack: Stack = {
    get client() {
      if (!client) throw new Error('useStack: the client is open only inside tests and hooks');
      return client;
    },
    get dbh() {
      if (!dbh) throw new Error('useStack: the database is open only inside tests and hooks');
      return dbh;
    },
    get db() {
      return stack.dbh.db;
    },
  };
  beforeAll(async () => {
    client = await connectClient();
    dbh = connect(process.env.DATABASE_URL, opts.dbPool ?? 2);
    await opts.setup?.(stack);
    if (opts.workers && opts.workers.length > 0) workers = await startTestWorkers(opts.workers);
  }, opts.timeoutMs);
  afterAll(async () => {
    await workers?.shutdown();
    await client?.connection.close();
    await dbh?.close();
  });
  return stack;
}
