import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { reports } from '../../db/schema/reports';
import { runs } from '../../db/schema/runs';
import { ADD, insertFixtureMethods } from '../fixtures/episodeMethods';
import { runCli } from '../helpers/cli';
import { useStack } from '../helpers/stack';

const stack = useStack({
  workers: ['pau', 'pau-sandbox'],
  setup: async ({ db }) => {
    await insertFixtureMethods(db, 'fixture-sched', [ADD]);
  },
});

async function scheduledRuns(scheduleId: string) {
  return stack.db.select().from(runs).where(sql`${runs.config}->>'scheduleId' = ${scheduleId}`).orderBy(runs.createdAt);
}

async function waitForCompletedRuns(scheduleId: string, n: number, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await scheduledRuns(scheduleId);
    const done = rows.filter((r) => r.status === 'completed' && (r.summary as { report?: number } | null)?.report);
    if (done.length >= n) return done;
    if (Date.now() > deadline) throw new Error(`${scheduleId}: ${done.length}/${n} scheduled runs reported within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('pau schedule', () => {
  it('creates, updates, pauses, triggers, backfills and deletes a nightly schedule', async () => {
    const id = `nightly-test-${Date.now().toString(36)}`;
    const common = ['--dataset', 'fixture-sched', '--models', 'mock-oracle', '--settings', 'in-context', '--id', id];

    const created = await runCli(['schedule', 'nightly', ...common, '--at', '03:30', '--tz', 'Europe/Paris']);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(`schedule ${id}: created`);
    expect(created.stdout).toContain('judge: mock-oracle'); // scripted agents: the scripted judge
    let d = await stack.client.schedule.getHandle(id).describe();
    expect(d.spec.calendars?.[0]).toMatchObject({ hour: [{ start: 3, end: 3, step: 1 }], minute: [{ start: 30, end: 30, step: 1 }] });
    expect(d.spec.timezone).toBe('Europe/Paris');
    expect(d.policies.overlap).toBe('SKIP');
    expect(d.policies.catchupWindow).toBe(3_600_000);

    // Same id again: updated in place, not duplicated.
    const updated = await runCli(['schedule', 'nightly', ...common, '--at', '04:15', '--tz', 'UTC', '--catchup', '30m']);
    expect(updated.code).toBe(0);
    expect(updated.stdout).toContain(`schedule ${id}: updated`);
    d = await stack.client.schedule.getHandle(id).describe();
    expect(d.spec.calendars?.[0]).toMatchObject({ hour: [{ start: 4, end: 4, step: 1 }], minute: [{ start: 15, end: 15, step: 1 }] });
    expect(d.spec.timezone).toBe('UTC');
    expect(d.policies.catchupWindow).toBe(1_800_000);

    const listed = await runCli(['schedule', 'list']);
    expect(listed.stdout).toMatch(new RegExp(`${id}\\s+active`));

    expect((await runCli(['schedule', 'pause', id])).code).toBe(0);
    expect((await stack.client.schedule.getHandle(id).describe()).state.paused).toBe(true);
    expect((await runCli(['schedule', 'describe', id])).stdout).toContain('(PAUSED)');
    expect((await runCli(['schedule', 'unpause', id])).code).toBe(0);
    expect((await stack.client.schedule.getHandle(id).describe()).state.paused).toBe(false);

    // Trigger: a scheduled run, reported. Then a second one, compared with the first.
    expect((await runCli(['schedule', 'trigger', id])).code).toBe(0);
    const [first] = await waitForCompletedRuns(id, 1);
    expect((first!.summary as { comparedWith: string | null }).comparedWith).toBeNull();
    expect((await runCli(['schedule', 'trigger', id])).code).toBe(0);
    const both = await waitForCompletedRuns(id, 2);
    const second = both[1]!;
    const s = second.summary as { comparedWith: string; regressions: string[]; report: number };
    expect(s.comparedWith).toBe(first!.id);
    expect(s.regressions).toEqual([]); // the scripted oracle does as well every night
    // The report is in Postgres (any host can fetch it), compared with the first run.
    const [stored] = await stack.db.select().from(reports).where(eq(reports.id, s.report));
    expect(stored?.compareRunId).toBe(first!.id);
    expect((stored!.json as { compare?: { runId: string } }).compare?.runId).toBe(first!.id);
    expect(stored?.html).toContain('<html');
    // The scheduled workflow is findable by kind in the UI's search.
    const kinds: string[] = [];
    for await (const wf of stack.client.workflow.list({ query: `PauKind = 'scheduled-benchmark' AND TemporalScheduledById = '${id}'` }))
      kinds.push(wf.workflowId);
    expect(kinds.length).toBeGreaterThanOrEqual(1);

    // Backfill validates its window.
    const bad = await runCli(['schedule', 'backfill', id, '--from', '2026-11-02T00:00:00Z', '--to', '2026-11-01T00:00:00Z']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--to must be after --from');

    expect((await runCli(['schedule', 'delete', id])).code).toBe(0);
    await expect(stack.client.schedule.getHandle(id).describe()).rejects.toThrow();
    expect((await runCli(['schedule', 'list'])).stdout).not.toContain(id);
    const [kept] = await stack.db.select().from(runs).where(eq(runs.id, first!.id));
    expect(kept?.status).toBe('completed');
  }, 300_000);

  it('rejects a bad time, time zone or model with exit code 2', async () => {
    const badAt = await runCli(['schedule', 'nightly', '--dataset', 'x', '--models', 'mock-oracle', '--at', '25:00']);
    expect(badAt.code).toBe(2);
    expect(badAt.stderr).toContain('--at');
    const badTz = await runCli(['schedule', 'nightly', '--dataset', 'x', '--models', 'mock-oracle', '--tz', 'Mars/Olympus']);
    expect(badTz.code).toBe(2);
    expect(badTz.stderr).toContain('--tz');
    const badModel = await runCli(['schedule', 'nightly', '--dataset', 'x', '--models', 'no-such-model']);
    expect(badModel.code).toBe(2);
    expect(badModel.stderr).toContain('no-such-model');
  });
});
