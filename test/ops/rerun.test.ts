// Reruns on the real stack: only a run's failed episodes run again (counted activities and model
// calls), and a failed workflow is reset to just before its failure without redoing what completed.
import { ApplicationFailure } from '@temporalio/common';
import fs from 'node:fs';
import { and, desc, eq, gte, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { BenchmarkConfig } from '../../domain/bench/types';
import type { TurnInput } from '../../domain/episode/types';
import { createMainActivities } from '../../activities/mainQueue';
import { llmCalls } from '../../db/schema/llm';
import { reports } from '../../db/schema/reports';
import { episodes, runs } from '../../db/schema/runs';
import { startBenchmark } from '../../scripts/client/starters';
import { scheduledBenchmarkWorkflow } from '../../workflows/ops/scheduledBenchmarkWorkflow';
import { ADD, insertFixtureMethods, RAISES, REVERSE } from '../fixtures/episodeMethods';
import { runCli } from '../helpers/cli';
import { startTestWorkers } from '../helpers/workers';
import { useStack } from '../helpers/stack';

const stack = useStack({
  setup: async ({ db }) => {
    // Ids of this file's own: another file's identical requests would answer these from the llm_calls cache.
    await insertFixtureMethods(
      db,
      'fixture-rerun',
      [ADD, REVERSE, RAISES].map((m) => ({ ...m, id: `${m.id}_rerun` })),
    );
  },
});

/** Workflow ids matching a visibility query, polled until `want` appear (visibility lags a little). */
async function listIds(query: string, want: number): Promise<string[]> {
  let ids: string[] = [];
  for (let i = 0; i < 50; i++) {
    ids = [];
    for await (const wf of stack.client.workflow.list({ query })) ids.push(wf.workflowId);
    if (ids.length >= want) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return ids.sort();
}

/** The pau queue's activities, with agentTurn counted per episode and optionally failing for some. */
function countingMain(failFor: (episodeId: string) => boolean) {
  const real = createMainActivities();
  const turns = new Map<string, number>();
  const activities = {
    ...real,
    agentTurn: async (input: TurnInput) => {
      turns.set(input.episodeId, (turns.get(input.episodeId) ?? 0) + 1);
      if (failFor(input.episodeId)) throw ApplicationFailure.nonRetryable('injected failure for the rerun test', 'InjectedFailure');
      return real.agentTurn(input);
    },
  };
  return { activities, turns };
}

describe('rerun --run RUN_ID --failed', () => {
  it('reruns only the failed episode; finished episodes run no activity and make no model call', async () => {
    const runId = `rerun-${Date.now().toString(36)}`;
    const config: BenchmarkConfig = { dataset: 'fixture-rerun', split: 'test', models: ['mock-oracle'], settings: ['interactive'], samples: 1 };
    const victim = `${runId}/${REVERSE.id}_rerun/mock-oracle/interactive/0`;

    const first = countingMain((id) => id === victim);
    let workers = await startTestWorkers(['pau', 'pau-sandbox'], { pau: first.activities });
    try {
      const result = await (await startBenchmark(stack.client, runId, config)).result();
      expect(result.totals).toMatchObject({ done: 3, failed: 1 });
    } finally {
      await workers.shutdown();
    }
    const [failedRow] = await stack.db.select().from(episodes).where(eq(episodes.id, victim));
    expect(failedRow?.status).toBe('failed');
    expect(failedRow?.error).toContain('InjectedFailure');
    // The UI's query for "failed episodes of run X for model Y" finds exactly that one.
    expect(await listIds(`PauKind = 'episode' AND PauRunId = '${runId}' AND PauModel = 'mock-oracle' AND PauOutcome = 'failed'`, 1)).toEqual([
      `episode/${victim}`,
    ]);

    // The report the run stored at its end counts the failed episode.
    const [firstReport] = await stack.db.select().from(reports).where(eq(reports.runId, runId)).orderBy(desc(reports.id)).limit(1);
    expect(firstReport?.text).toMatch(/mock-oracle\s+interactive\s+3\s+1 failed/);

    const second = countingMain(() => false);
    workers = await startTestWorkers(['pau', 'pau-sandbox'], { pau: second.activities });
    const before = new Date();
    try {
      const r = await runCli(['rerun', '--run', runId, '--failed']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('rerunning 1 failed episode(s)');
      expect(r.stdout).toMatch(/rerun done: 1 of 1 now completed, 0 still failed/);
      // The calls the rerun sent, from the ledger: the victim's turns, all answered.
      const sent = /new model calls made: (\d+) \((\d+) answered, 0 not\)/.exec(r.stdout);
      expect(sent, r.stdout).not.toBeNull();
      expect(Number(sent![1])).toBe(second.turns.get(victim));
      expect(sent![2]).toBe(sent![1]);
      // The report is produced again at the rerun's end, stored and written: it no longer counts a failure.
      const [fresh] = await stack.db.select().from(reports).where(eq(reports.runId, runId)).orderBy(desc(reports.id)).limit(1);
      expect(fresh!.id).toBeGreaterThan(firstReport!.id);
      expect(fresh!.createdAt.getTime()).toBeGreaterThanOrEqual(before.getTime());
      expect(fresh!.text).not.toContain('failed');
      expect(r.stdout).toContain(fresh!.text!.split('\n')[0]!);
      const htmlPath = /report: (\S+\.html)/.exec(r.stdout)?.[1];
      expect(fs.readFileSync(htmlPath!, 'utf8')).toBe(fresh!.html);
    } finally {
      await workers.shutdown();
    }
    // Only the failed episode ran again.
    expect([...second.turns.keys()]).toEqual([victim]);
    const eps = await stack.db.select().from(episodes).where(eq(episodes.runId, runId));
    expect(eps.map((e) => e.status)).toEqual(['completed', 'completed', 'completed']);
    // The model calls made during the rerun were the victim's turns and no others.
    const [newCalls] = await stack.db.select({ n: sql<number>`count(*)::int` }).from(llmCalls).where(gte(llmCalls.createdAt, before));
    expect(newCalls?.n).toBe(second.turns.get(victim));
    const [run] = await stack.db.select().from(runs).where(eq(runs.id, runId));
    expect(run?.status).toBe('completed');
    expect(run?.summary).toMatchObject({ total: 3, done: 3, failed: 0 });
    expect(await listIds(`PauKind = 'episode' AND PauRunId = '${runId}' AND PauOutcome = 'completed'`, 3)).toHaveLength(3);

    // Nothing left to rerun: a clear no-op.
    const again = await runCli(['rerun', '--run', runId, '--failed']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('no failed episodes');
  }, 180_000);
});

describe('rerun WORKFLOW_ID', () => {
  it('resets a failed workflow to before its failure: completed steps are not executed again', async () => {
    // A scheduled-benchmark workflow whose report step fails once: the benchmark child has completed by then.
    const scheduleId = `reset-${Date.now().toString(36)}`;
    const workflowId = `scheduled/${scheduleId}-manual`;
    const config: BenchmarkConfig = { dataset: 'fixture-rerun', split: 'test', models: ['mock-oracle'], settings: ['in-context'], samples: 1 };
    const broken = countingMain(() => false);
    let reportCalls = 0;
    const failingReport = {
      ...broken.activities,
      produceReport: async () => {
        reportCalls++;
        throw ApplicationFailure.nonRetryable('injected report failure', 'InjectedFailure');
      },
    };
    let workers = await startTestWorkers(['pau', 'pau-sandbox'], { pau: failingReport });
    try {
      const handle = await stack.client.workflow.start(scheduledBenchmarkWorkflow, { taskQueue: 'pau', workflowId, args: [{ scheduleId, config }] });
      await expect(handle.result()).rejects.toThrow();
    } finally {
      await workers.shutdown();
    }
    expect(reportCalls).toBe(1);
    const turnsBefore = [...broken.turns.values()].reduce((a, b) => a + b, 0);
    expect(turnsBefore).toBe(3);

    const fixed = countingMain(() => false);
    workers = await startTestWorkers(['pau', 'pau-sandbox'], { pau: fixed.activities });
    try {
      const r = await runCli(['rerun', workflowId]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/first failure at event \d+ \(activity failed: injected report failure\)/);
      const result = await stack.client.workflow.getHandle<typeof scheduledBenchmarkWorkflow>(workflowId).result();
      expect(result.reportId).toBeGreaterThan(0);
    } finally {
      await workers.shutdown();
    }
    // The benchmark child was not run again: no agent turn after the reset.
    expect(fixed.turns.size).toBe(0);
    const runId = `${scheduleId}-manual`;
    const [run] = await stack.db
      .select()
      .from(runs)
      .where(and(eq(runs.id, runId), eq(runs.status, 'completed')));
    expect(run?.summary).toMatchObject({ report: expect.any(Number) });
    const [stored] = await stack.db.select().from(reports).where(eq(reports.runId, runId));
    expect(stored?.html).toContain('<html');

    // A workflow without a failure is refused with a clear message.
    const nothing = await runCli(['rerun', workflowId]);
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain('has no failure in its history');
  }, 180_000);
});
