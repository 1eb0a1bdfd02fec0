// Postgres unreachable during a model turn is waited out like a model outage (to the run's outage wait),
// not turned into a failed episode after the turn's own retries; a database error that is not an outage
// still fails the episode. Stopping the shared test Postgres would break the other suites of the run, so the
// outage is the turn activity's own: its database handle points at a port where nothing listens (a real
// ECONNREFUSED through node-postgres and drizzle) until the test switches it back. The rest of the worker
// (runs, episodes, the scripted model server's method lookup) uses the real database throughout.
// The chaos script (`npm run chaos`) covers a real Postgres stop longer than the turn's retries.
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEpisodeActivities } from '../../activities/episode/index';
import { connect, type DbHandle, getDb } from '../../db/client';
import { episodes, runs } from '../../db/schema/runs';
import type { BenchmarkConfig } from '../../domain/bench/types';
import { WAITING_FOR_DATABASE } from '../../domain/episode/outageWait';
import { launchBenchmark } from '../../scripts/client/benchStart';
import { queueSpecs } from '../../workers/queues';
import { insertFixtureMethods, manyMethods } from '../fixtures/episodeMethods';
import { maybeRecordHistory } from '../helpers/histories';
import { useStack } from '../helpers/stack';
import { startTestWorkers, type TestWorkers } from '../helpers/workers';
import { freePort, modelsFile, provider } from './helpers';
import { sleep } from '../../platform/process/processes';
import { hostEndpoints } from '../../activities/llm/hostEndpoints';

const model = provider(await freePort());
process.env.PAU_MODELS_FILE = await modelsFile({ steady: { policy: 'oracle', port: model.port } });

/** What the turn activity's database is: the real one, nothing at all, or a server that refuses the database. */
let turnDb: 'up' | 'down' | 'wrong-database' = 'up';
let nowhere: DbHandle;
let wrongDatabase: DbHandle;
let workers: TestWorkers | undefined;

const stack = useStack({
  setup: async ({ db }) => {
    await insertFixtureMethods(db, 'rel-db-outage', manyMethods(1, 'rel/dbout'));
    await insertFixtureMethods(db, 'rel-db-deadline', manyMethods(1, 'rel/dbdeadline'));
    await insertFixtureMethods(db, 'rel-db-error', manyMethods(1, 'rel/dberror'));
  },
});

beforeAll(async () => {
  await model.up();
  nowhere = connect(`postgres://pau:x@127.0.0.1:${await freePort()}/pau`, 1);
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = '/no_such_database';
  wrongDatabase = connect(url.toString(), 1);
  const turnActivities = createEpisodeActivities(() => (turnDb === 'up' ? getDb() : turnDb === 'down' ? nowhere.db : wrongDatabase.db), hostEndpoints);
  workers = await startTestWorkers(['pau', 'pau-sandbox'], { pau: { ...queueSpecs().pau.activities(), agentTurn: turnActivities.agentTurn } });
});
afterAll(async () => {
  await workers?.shutdown();
  await model.down();
  await nowhere?.close();
  await wrongDatabase?.close();
});

const uid = () => Date.now().toString(36) + Math.random().toString(36).slice(2, 5);

const config = (dataset: string, waitSeconds: number): BenchmarkConfig => ({
  dataset,
  split: 'test',
  models: ['steady'],
  settings: ['interactive'],
  samples: 1,
  outageWaitSeconds: waitSeconds,
  // The turn's own retries, shortened so the workflow's wait takes over within a second.
  modelRetry: { maximumAttempts: 2, initialInterval: '200ms', maximumInterval: '200ms' },
  // The wait's tries 0.5, 1, 2 s apart instead of 5, 10, 20 s: the episode comes back soon after Postgres does.
  outageFirstRetrySeconds: 0.5,
});

async function waitingForDatabase(runId: string): Promise<string | undefined> {
  for await (const w of stack.client.workflow.list({ query: `PauRunId = '${runId}' AND PauWaitingFor = '${WAITING_FOR_DATABASE}'` })) return w.workflowId;
  return undefined;
}

describe('Postgres unreachable during a turn', () => {
  it('is waited out, visibly, and the episode completes when it is back', async () => {
    turnDb = 'down';
    const id = `rel-db-outage-${uid()}`;
    const { handle } = await launchBenchmark(stack.client, stack.db, id, config('rel-db-outage', 600));
    let episodeId: string | undefined;
    for (let i = 0; i < 300 && !episodeId; i++) {
      episodeId = await waitingForDatabase(id);
      if (!episodeId) await sleep(200);
    }
    expect(episodeId).toBeDefined();
    const meta = await stack.client.workflow.getHandle(episodeId!).query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(meta.currentDetails).toContain('waiting for Postgres');
    await sleep(2_000); // longer than the turn's own retries (2 × 200 ms): only the wait keeps the episode alive
    turnDb = 'up';
    const result = await handle.result();
    expect(result.totals).toMatchObject({ done: 1, failed: 0 });
    const [row] = await stack.db.select().from(runs).where(eq(runs.id, id));
    expect(row?.status).toBe('completed');
    const [ep] = await stack.db.select().from(episodes).where(eq(episodes.runId, id));
    expect(ep).toMatchObject({ status: 'completed', waitingFor: null });
    expect(await waitingForDatabase(id)).toBeUndefined();
    await maybeRecordHistory(stack.client.workflow.getHandle(episodeId!), 'episode-with-db-outage-wait.json');
  }, 120_000);

  it('past the run outage wait, the episode fails saying so', async () => {
    turnDb = 'down';
    const id = `rel-db-deadline-${uid()}`;
    try {
      const { handle } = await launchBenchmark(stack.client, stack.db, id, config('rel-db-deadline', 2));
      const result = await handle.result();
      expect(result.totals).toMatchObject({ done: 1, failed: 1 });
    } finally {
      turnDb = 'up';
    }
    const [ep] = await stack.db.select().from(episodes).where(eq(episodes.runId, id));
    expect(ep?.status).toBe('failed');
    expect(ep?.error).toMatch(/DbOutageTooLong: Postgres unreachable for \d+ s, longer than the run's outage wait \(2 s\)/);
  }, 120_000);

  it('a database error that is not an outage is not waited for: the episode fails after the turn retries', async () => {
    turnDb = 'wrong-database';
    const id = `rel-db-error-${uid()}`;
    const started = Date.now();
    try {
      // A wait of 10 minutes: the episode failing within the test's time shows no wait happened.
      const { handle } = await launchBenchmark(stack.client, stack.db, id, config('rel-db-error', 600));
      const result = await handle.result();
      expect(result.totals).toMatchObject({ done: 1, failed: 1 });
    } finally {
      turnDb = 'up';
    }
    expect(Date.now() - started).toBeLessThan(60_000);
    const [ep] = await stack.db.select().from(episodes).where(eq(episodes.runId, id));
    expect(ep?.error).toMatch(/no_such_database/);
  }, 120_000);
});
