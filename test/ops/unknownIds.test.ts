// What the CLI says about things that are not there, as a user meets it: an id that names nothing gets one
// line and exit 2 from every verb (docs/cli.md), never a stack trace; `schedule trigger` says when no worker
// polls the schedule's task queue (the run would wait), and says "triggered" when one does.
import { describe, expect, it } from 'vitest';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { runCli } from '../helpers/cli';
import { usePieceWorker } from '../helpers/pieceWorkers';

// A worker polling `pau` (the piece worker), none on the queue the unpolled schedule starts its workflow on.
const piece = usePieceWorker();

const stamp = Date.now().toString(36);
const NOPE = `nope-${stamp}`;

describe('an id that names nothing', () => {
  it.each([
    [['report', NOPE], 'report', `no run "${NOPE}"`],
    [['report', 'show', NOPE], 'report', `no run "${NOPE}"`],
    [['report', '--compare', `${NOPE},${NOPE}-b`], 'report', `no run "${NOPE}"`],
    [['export', 'inspect', NOPE], 'export', `no run "${NOPE}"`],
    [['runs', 'show', NOPE], 'runs', `no run "${NOPE}"`],
    [['runs', 'show', NOPE, '--episode', 'm/x/interactive/0'], 'runs', `no run "${NOPE}"`],
    [['runs', 'cancel', NOPE], 'runs', `no run "${NOPE}"`],
    [['bench', 'status', NOPE], 'bench', `no run "${NOPE}"`],
    [['bench', 'run', '--run-id', NOPE, '--resume', '--models', 'mock-oracle'], 'bench', `no run "${NOPE}"`],
    [['rerun', '--run', NOPE], 'rerun', `no run "${NOPE}"`],
    [['rerun', '--run', NOPE, '--failed'], 'rerun', `no run "${NOPE}"`],
    [['rerun', `bench/${NOPE}`], 'rerun', `no workflow "bench/${NOPE}"`],
    [['judge', '--run', NOPE, '--judge-model', 'mock-oracle'], 'judge', `no run "${NOPE}"`],
    [['sft', 'report', NOPE], 'sft', `no sft run "${NOPE}"`],
    [['grpo', 'report', NOPE], 'grpo', `no grpo run "${NOPE}"`],
    [['sft', 'show', NOPE], 'sft', `no SFT data set "${NOPE}"`],
    [['dataset', 'show', NOPE], 'dataset', `no data set "${NOPE}"`],
    [['schedule', 'describe', NOPE], 'schedule', `no schedule "${NOPE}"`],
    [['schedule', 'pause', NOPE], 'schedule', `no schedule "${NOPE}"`],
    [['schedule', 'trigger', NOPE], 'schedule', `no schedule "${NOPE}"`],
    [['schedule', 'delete', NOPE], 'schedule', `no schedule "${NOPE}"`],
  ])('pau %j: one line naming it, exit 2', async (args, verb, says) => {
    const r = await runCli(args);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^pau ${verb}: `));
    expect(lines[0]).toContain(says);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });
});

function probeArgs(id: string) {
  const episodeId = `${id}/m/agent/interactive/0`;
  return {
    input: { runId: id, episodeId, methodId: 'm', model: 'agent', setting: 'interactive', sample: 0 },
    outcome: { episodeId, status: 'failed', endReason: 'error', callsMade: 0, turns: 0, tokensIn: 0, tokensOut: 0, costUsd: 0 },
  };
}

describe('schedule trigger', () => {
  async function scheduleOn(taskQueue: string): Promise<string> {
    const id = `trigger-${taskQueue}-${stamp}`;
    await piece.client.schedule.create({
      scheduleId: id,
      spec: { calendars: [{ hour: 3, minute: 30 }] },
      // A piece workflow that returns at once (the judge step after an episode that failed).
      action: { type: 'startWorkflow', workflowType: 'judgeStepProbe', workflowId: `scheduled/${id}`, taskQueue, args: [probeArgs(id)] },
      state: { paused: true },
    });
    return id;
  }

  async function cleanUp(id: string): Promise<void> {
    await piece.client.schedule.getHandle(id).delete();
    for await (const wf of piece.client.workflow.list({ query: `TemporalScheduledById = '${id}'` }))
      await piece.client.workflow
        .getHandle(wf.workflowId, wf.runId)
        .terminate('test over')
        .catch(() => undefined);
  }

  it('says when no worker polls the queue its run would start on, and exits 1', async () => {
    const id = await scheduleOn(`pau-unpolled-${stamp}`);
    try {
      const r = await runCli(['schedule', 'trigger', id]);
      expect(r.code, r.stdout + r.stderr).toBe(1);
      expect(r.stderr.trim()).toBe(
        `schedule ${id}: triggered, but no worker polls task queue pau-unpolled-${stamp}: the run waits until one does (start the workers: npm run pau -- workers, or npm start)`,
      );
      expect(r.stdout).not.toContain('a run starts now');
    } finally {
      await cleanUp(id);
    }
  });

  it('says "triggered" when a worker polls it', async () => {
    const id = await scheduleOn(TASK_QUEUES.main);
    try {
      const r = await runCli(['schedule', 'trigger', id]);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toContain(`schedule ${id}: triggered (a run starts now; overlap policy applies)`);
    } finally {
      await cleanUp(id);
    }
  });
});
