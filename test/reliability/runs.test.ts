// Run records, cancellation, reconciliation after terminate, and waiting out a model outage, against the
// real stack with scripted models served on ports the test controls.
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runProgress } from '../../db/queries/runs';
import { episodes, judgments, runs, steps } from '../../db/schema/runs';
import { checkpoints } from '../../db/schema/training';
import type { BenchmarkConfig } from '../../domain/bench/types';
import { benchWorkflowId, episodeWorkflowId } from '../../domain/bench/workflowIds';
import { launchBenchmark, resumeBenchmark } from '../../scripts/client/benchStart';
import { startBenchmark } from '../../scripts/client/starters';
import { watchToEnd } from '../../scripts/commands/bench';
import { insertFixtureMethods, manyMethods } from '../fixtures/episodeMethods';
import { runCli } from '../helpers/cli';
import { activitiesOf, maybeRecordHistory } from '../helpers/histories';
import { useStack } from '../helpers/stack';
import { freePort, modelsFile, provider } from './helpers';
import { sleep } from '../../platform/process/processes';

const flaky = provider(await freePort());
// The slow model answers after SLOW_MS while a test needs its run to be mid-way when it acts on it.
const SLOW_MS = 250;
const slow = provider(await freePort(), SLOW_MS);
process.env.PAU_MODELS_FILE = await modelsFile({
  flaky: { policy: 'oracle', port: flaky.port, timeoutMs: 5_000 },
  'slow-steps': { policy: 'steps', port: slow.port },
});

// Enough methods that the cancel test's run outlasts the CLI's start-up (seconds under load) after its first
// finished episode: with 6 the run sometimes ended before `runs cancel` arrived, and with local turns (the
// default for the scripted models) an episode takes ~3.5 s, so 14 sometimes did too at load 5.
const CANCEL_METHODS = 24;

const stack = useStack({
  workers: ['pau', 'pau-sandbox'],
  setup: async ({ db }) => {
    await insertFixtureMethods(db, 'rel-small', manyMethods(2, 'rel/small'));
    await insertFixtureMethods(db, 'rel-cancel', manyMethods(CANCEL_METHODS, 'rel/cancel'));
    await insertFixtureMethods(db, 'rel-terminate', manyMethods(6, 'rel/terminate'));
    await insertFixtureMethods(db, 'rel-outage', manyMethods(3, 'rel/outage'));
    await insertFixtureMethods(db, 'rel-deadline', manyMethods(2, 'rel/deadline'));
    await insertFixtureMethods(db, 'rel-judge', manyMethods(2, 'rel/judge'));
  },
});

beforeAll(async () => {
  await slow.up();
});
afterAll(async () => {
  await slow.down();
  await flaky.down();
});

const uid = () => Date.now().toString(36) + Math.random().toString(36).slice(2, 5);

async function episodeRows(runId: string) {
  return stack.db.select().from(episodes).where(eq(episodes.runId, runId));
}

async function until<T>(what: string, f: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

describe('run records', () => {
  it('refuses an unknown dataset, an empty split and an unknown model before starting (exit 2, --detach too), leaving no run', async () => {
    const id = `rel-bad-${uid()}`;
    const noDataset = await runCli(['bench', 'run', '--dataset', 'nope-v9', '--models', 'mock-oracle', '--run-id', id, '--detach']);
    expect(noDataset.code).toBe(2);
    expect(noDataset.stderr).toContain('dataset "nope-v9" does not exist');
    expect(noDataset.stdout).not.toContain('run id:');
    const empty = await runCli(['bench', 'run', '--dataset', 'rel-small', '--split', 'validation', '--models', 'mock-oracle', '--run-id', id]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('has no methods in split validation');
    const model = await runCli(['bench', 'run', '--dataset', 'rel-small', '--models', 'no-such-model', '--run-id', id, '--detach']);
    expect(model.code).toBe(2);
    expect(model.stderr).toContain('unknown model "no-such-model"');
    expect(await stack.db.select().from(runs).where(eq(runs.id, id))).toHaveLength(0);
  });

  it('takes a registered checkpoint as a model (ckpt:<id>) and refuses an unregistered one (exit 2)', async () => {
    const id = `rel-ckpt-${uid()}`;
    const missing = await runCli(['bench', 'run', '--dataset', 'rel-small', '--models', 'ckpt:no-such-ckpt', '--judge', 'off', '--run-id', id, '--detach']);
    expect(missing.code, missing.stdout + missing.stderr).toBe(2);
    expect(missing.stderr).toContain('unknown model "ckpt:no-such-ckpt": no checkpoint "no-such-ckpt" is registered');
    expect(await stack.db.select().from(runs).where(eq(runs.id, id))).toHaveLength(0);
    // A registered one starts (the run is stopped before its episodes need the adapter's files).
    await stack.db.insert(runs).values({ id: `${id}-train`, kind: 'sft', status: 'completed', config: {} });
    await stack.db.insert(checkpoints).values({ id: `${id}-c`, runId: `${id}-train`, epoch: 1, baseModel: 'local/smollm2-135m', path: '/nonexistent' });
    const started = await runCli([
      'bench',
      'run',
      '--dataset',
      'rel-small',
      '--models',
      `ckpt:${id}-c`,
      '--settings',
      'interactive',
      '--judge',
      'off',
      '--run-id',
      id,
      '--detach',
    ]);
    expect(started.code, started.stdout + started.stderr).toBe(0);
    expect(started.stdout).toContain(`run id: ${id}`);
    await stack.client.workflow.getHandle(benchWorkflowId(id)).terminate('test: started, not run');
  });

  it('a run id is unique: reusing it is refused and the run is left as it was', async () => {
    const id = `rel-unique-${uid()}`;
    const first = await runCli(['bench', 'run', '--dataset', 'rel-small', '--models', 'mock-oracle', '--settings', 'interactive', '--run-id', id]);
    expect(first.code).toBe(0);
    const before = await stack.db.select().from(runs).where(eq(runs.id, id));
    expect(before[0]?.status).toBe('completed');
    const again = await runCli(['bench', 'run', '--dataset', 'rel-small', '--models', 'mock-random', '--settings', 'interactive', '--run-id', id]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`run id ${id} is already used`);
    expect(again.stderr).toContain('--resume');
    const after = await stack.db.select().from(runs).where(eq(runs.id, id));
    expect(after[0]?.config).toEqual(before[0]?.config);
    expect(after[0]?.summary).toEqual(before[0]?.summary);
    const eps = await episodeRows(id);
    expect(eps).toHaveLength(2);
    expect(eps.every((e) => e.model === 'mock-oracle')).toBe(true);
    // The workflow refuses a different config under a used id too (a start that bypassed the CLI), and
    // leaves the run's row alone.
    const clash = await startBenchmark(stack.client, id, {
      dataset: 'rel-small',
      split: 'test',
      models: ['mock-random'],
      settings: ['interactive'],
      samples: 1,
    });
    await expect(clash.result()).rejects.toThrow();
    const described = await stack.client.workflow.getHandle(benchWorkflowId(id)).describe();
    expect(described.status.name).toBe('FAILED');
    const untouched = await stack.db.select().from(runs).where(eq(runs.id, id));
    expect(untouched[0]).toMatchObject({ status: 'completed', config: before[0]?.config, summary: before[0]?.summary });
    expect(await episodeRows(id)).toHaveLength(2);
  });

  it('the runs row exists from the start whatever happens; a workflow failure is printed as its cause', async () => {
    const id = `rel-fail-${uid()}`;
    const handle = await startBenchmark(stack.client, id, {
      dataset: 'nope-v9',
      split: 'test',
      models: ['mock-oracle'],
      settings: ['interactive'],
      samples: 1,
    });
    await expect(handle.result()).rejects.toThrow();
    const [row] = await stack.db.select().from(runs).where(eq(runs.id, id));
    expect(row?.status).toBe('failed');
    expect(row?.error).toContain('DatasetNotFound');
    const errors: string[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void errors.push(a.join(' ')));
    try {
      expect(await watchToEnd(stack.db, handle, id)).toBe(1);
    } finally {
      spy.mockRestore();
    }
    expect(errors.join('\n')).toContain(`run ${id} failed: DatasetNotFound: dataset "nope-v9" does not exist`);
    expect(errors.join('\n')).not.toMatch(/\n\s+at /);
  });
});

const slowConfig = (dataset: string): BenchmarkConfig => ({ dataset, split: 'test', models: ['slow-steps'], settings: ['interactive'], samples: 1, window: 2 });

async function finishedBefore(runId: string) {
  const rows = await episodeRows(runId);
  return new Map(rows.filter((e) => e.status === 'completed').map((e) => [e.id, e.finishedAt?.getTime()]));
}

async function expectContiguousSteps(runId: string) {
  const rows = await stack.db
    .select({ episodeId: steps.episodeId, idx: steps.idx })
    .from(steps)
    .innerJoin(episodes, eq(episodes.id, steps.episodeId))
    .where(eq(episodes.runId, runId))
    .orderBy(steps.episodeId, steps.idx);
  const by = new Map<string, number[]>();
  for (const r of rows) by.set(r.episodeId, [...(by.get(r.episodeId) ?? []), r.idx]);
  for (const [, idx] of by) expect(idx).toEqual(idx.map((_, i) => i));
}

describe('cancel and reconcile', () => {
  it('runs cancel stops episodes at a turn boundary, marks the rows cancelled; rerun continues without redoing finished episodes', async () => {
    const id = `rel-cancel-${uid()}`;
    slow.setLatency(SLOW_MS);
    const { handle } = await launchBenchmark(stack.client, stack.db, id, slowConfig('rel-cancel'));
    await until('a finished episode', async () => (await episodeRows(id)).some((e) => e.status === 'completed'), 90_000);
    const r = await runCli(['runs', 'cancel', id]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('cancellation requested');
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    const [row] = await stack.db.select().from(runs).where(eq(runs.id, id));
    expect(row?.status).toBe('cancelled');
    expect(row?.cancelRequestedAt).toBeInstanceOf(Date); // what the episodes' local turns read
    const eps = await episodeRows(id);
    expect(eps.filter((e) => e.status === 'running' || e.status === 'pending')).toHaveLength(0);
    const cancelled = eps.filter((e) => e.status === 'cancelled');
    expect(cancelled.length).toBeGreaterThan(0);
    // Stopped at a turn boundary by its own workflow. With a window of 2, the episode that took the finished one's
    // place may have been stopped before its first turn; the other one was mid-way through its turns.
    const stopped = cancelled.filter((e) => e.endReason === 'cancelled');
    expect(stopped.length).toBeGreaterThan(0);
    // Its turns were local activities, and a turn that read the run's cancel flag ended the workflow task
    // (a timer) so the cancellation got in, instead of the episode running to its end.
    const handles = stopped.map((e) => stack.client.workflow.getHandle(episodeWorkflowId(id, e.methodId, e.model, e.setting, e.sample)));
    const turned = await Promise.all(handles.map(async (h) => (await activitiesOf(h)).local.includes('agentTurn')));
    const episodeHandle = handles[turned.indexOf(true)];
    expect(episodeHandle, 'a cancelled episode whose turns ran as local activities').toBeDefined();
    if (!episodeHandle) return;
    const events = (await episodeHandle.fetchHistory()).events ?? [];
    expect(events.some((e) => e.timerStartedEventAttributes)).toBe(true);
    expect(events.some((e) => e.workflowExecutionCancelRequestedEventAttributes)).toBe(true);
    await maybeRecordHistory(handle, 'benchmarkRun-cancelled-with-flag.json');
    await maybeRecordHistory(episodeHandle, 'episode-local-turns-run-cancelled.json');
    await expectContiguousSteps(id);
    const done = await finishedBefore(id);
    expect(done.size).toBeLessThan(CANCEL_METHODS - 2); // the rerun has episodes left to run

    const list = await runCli(['runs', 'list']);
    expect(list.stdout).toMatch(new RegExp(`${id}\\s+benchmark\\s+cancelled`));
    // The latency only had to make the run outlast the cancel's arrival; what the rerun is checked for (every
    // episode completed, none redone, the flag cleared, contiguous steps) does not depend on the model's speed.
    slow.setLatency(0);
    const cont = await runCli(['rerun', '--run', id], {}, 180_000);
    expect(cont.code).toBe(0);
    const final = await episodeRows(id);
    expect(final.filter((e) => e.status === 'completed')).toHaveLength(CANCEL_METHODS);
    for (const [eid, t] of done) expect(final.find((e) => e.id === eid)?.finishedAt?.getTime()).toBe(t); // not redone
    const [after] = await stack.db.select().from(runs).where(eq(runs.id, id));
    expect(after?.status).toBe('completed');
    expect(after?.cancelRequestedAt).toBeNull(); // cleared when the run ran again
    await expectContiguousSteps(id);
  }, 240_000);

  it('a terminated run is reconciled (runs list shows it stopped, rows marked) and rerun continues it', async () => {
    const id = `rel-term-${uid()}`;
    slow.setLatency(SLOW_MS);
    const { handle } = await launchBenchmark(stack.client, stack.db, id, slowConfig('rel-terminate'));
    await until('a finished episode', async () => (await episodeRows(id)).some((e) => e.status === 'completed'), 90_000);
    await handle.terminate('test: terminate');
    await until('rows left running', async () => (await episodeRows(id)).some((e) => e.status === 'running'), 5_000).catch(() => undefined);
    const list = await runCli(['runs', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`${id}\\s+benchmark\\s+cancelled`));
    expect(list.stdout).not.toMatch(new RegExp(`${id}\\s+benchmark\\s+running`));
    const eps = await episodeRows(id);
    expect(eps.filter((e) => e.status === 'running' || e.status === 'pending')).toHaveLength(0);
    const done = await finishedBefore(id);

    slow.setLatency(0); // as in the cancel test: the resume's checks do not need a slow model
    const resumed = await resumeBenchmark(stack.client, stack.db, id);
    const result = await resumed.handle.result();
    expect(result.totals).toMatchObject({ done: 6, failed: 0 });
    const final = await episodeRows(id);
    expect(final.filter((e) => e.status === 'completed')).toHaveLength(6);
    for (const [eid, t] of done) expect(final.find((e) => e.id === eid)?.finishedAt?.getTime()).toBe(t);
    await expectContiguousSteps(id);
  }, 240_000);

  it('rerun after a terminate judges an episode that ended before its judge step started', async () => {
    await flaky.up();
    try {
      const id = `rel-judge-${uid()}`;
      const config: BenchmarkConfig = { dataset: 'rel-judge', split: 'test', models: ['flaky'], settings: ['in-context'], samples: 1, judgeModel: 'flaky' };
      await (await launchBenchmark(stack.client, stack.db, id, config)).handle.result();
      const judged = async () =>
        stack.db
          .select({ episodeId: judgments.episodeId })
          .from(judgments)
          .innerJoin(episodes, eq(episodes.id, judgments.episodeId))
          .where(eq(episodes.runId, id));
      const before = await judged();
      expect(before).toHaveLength(2);
      // What a terminate between an episode's end and its judge child's start leaves: completed, unjudged.
      const lost = before[0]!.episodeId;
      await stack.db.delete(judgments).where(eq(judgments.episodeId, lost));
      const result = await (await resumeBenchmark(stack.client, stack.db, id)).handle.result();
      expect(result.totals).toMatchObject({ done: 2, failed: 0 });
      expect((await judged()).map((j) => j.episodeId).sort()).toEqual(before.map((j) => j.episodeId).sort());
    } finally {
      await flaky.down();
    }
  }, 180_000);
});

const outageConfig = (dataset: string, waitSeconds: number): BenchmarkConfig => ({
  dataset,
  split: 'test',
  models: ['flaky'],
  settings: ['interactive'],
  samples: 1,
  outageWaitSeconds: waitSeconds,
  // The activity's own retries, shortened so the workflow's wait takes over within a second.
  modelRetry: { maximumAttempts: 2, initialInterval: '200ms', maximumInterval: '200ms' },
  // The wait's tries 0.5, 1, 2 s apart instead of 5, 10, 20 s: the episodes come back soon after the model does.
  outageFirstRetrySeconds: 0.5,
});

describe('model outage', () => {
  it('an unreachable model is waited out, visibly, and the episodes complete when it is back', async () => {
    await flaky.down();
    const id = `rel-outage-${uid()}`;
    const { handle } = await launchBenchmark(stack.client, stack.db, id, outageConfig('rel-outage', 600));
    const p = await until('the run to show it waits', async () => {
      const q = await runProgress(stack.db, id);
      return q && q.waiting.length > 0 && q.waiting[0]!.episodes === 3 ? q : undefined;
    });
    expect(p.waiting[0]).toMatchObject({ model: 'flaky', episodes: 3 });
    expect(p.waiting[0]?.error).toMatch(/LlmConnectionError|connection/i);
    const show = await runCli(['runs', 'show', id]);
    expect(show.stdout).toContain('WAITING for model flaky (3 episode(s)');
    expect(show.stdout).toContain('model calls paid twice: 0 call(s)');
    const waiting = await until('the PauWaitingFor search attribute', async () => {
      let n = 0;
      for await (const _ of stack.client.workflow.list({ query: `PauRunId = '${id}' AND PauWaitingFor = 'flaky'` })) n++;
      return n === 3 ? n : undefined;
    });
    expect(waiting).toBe(3);
    await sleep(2_000); // longer than the activity's own retries (2 × 200 ms): only the wait keeps the episodes alive
    await flaky.up();
    const result = await handle.result();
    expect(result.totals).toMatchObject({ done: 3, failed: 0 });
    const [row] = await stack.db.select().from(runs).where(eq(runs.id, id));
    expect(row?.status).toBe('completed');
    const eps = await episodeRows(id);
    expect(eps.every((e) => e.status === 'completed' && e.waitingFor === null)).toBe(true);
  }, 180_000);

  it('a model down past the outage wait fails its episodes, and the run says completed_with_failures', async () => {
    await flaky.down();
    const id = `rel-deadline-${uid()}`;
    const { handle } = await launchBenchmark(stack.client, stack.db, id, outageConfig('rel-deadline', 2));
    const result = await handle.result();
    expect(result.totals).toMatchObject({ done: 2, failed: 2 });
    const [row] = await stack.db.select().from(runs).where(eq(runs.id, id));
    expect(row?.status).toBe('completed_with_failures');
    const failed = await stack.db
      .select()
      .from(episodes)
      .where(and(eq(episodes.runId, id), eq(episodes.status, 'failed')));
    expect(failed).toHaveLength(2);
    expect(failed.every((e) => /ModelOutageTooLong: model flaky unreachable/.test(e.error ?? ''))).toBe(true);
    const [{ n } = { n: 0 }] = await stack.db
      .select({ n: sql<number>`count(*)::int` })
      .from(episodes)
      .where(and(eq(episodes.runId, id), sql`${episodes.waitingFor} is not null`));
    expect(n).toBe(0);
  }, 120_000);
});
