import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { doctorWorkflow } from '../../workflows/doctor/doctorWorkflow';
import { doctorChecks } from '../../db/schema/ops';
import { runDoctor } from '../../scripts/client/doctor';
import { runCli, startScript } from '../helpers/cli';
import { startTestWorkers, type TestWorkers } from '../helpers/workers';
import { useStack } from '../helpers/stack';

const stack = useStack();

describe('doctor workflow', () => {
  it('runs one activity on each queue and persists every part', async () => {
    const workers = await startTestWorkers(['pau', 'pau-sandbox', 'pau-gpu']);
    try {
      const report = await runDoctor(stack.client, { queueWaitSeconds: 20 });
      expect(report.results.map((r) => r.part).sort()).toEqual(['gpu', 'postgres', 'sandbox']);
      expect(report.ok).toBe(true);
      expect(report.results.find((r) => r.part === 'sandbox')?.detail).toContain('probe(10) = 285');
      const rows = await stack.db.select().from(doctorChecks).where(eq(doctorChecks.workflowId, report.workflowId));
      expect(rows.map((r) => `${r.part}:${r.ok}`).sort()).toEqual(['gpu:true', 'postgres:true', 'sandbox:true']);

      // Search attributes are set and queryable, as the UI and `temporal workflow list` use them.
      const found: string[] = [];
      for (let i = 0; i < 50 && !found.includes(report.workflowId); i++) {
        for await (const wf of stack.client.workflow.list({ query: `PauKind = 'doctor'` })) found.push(wf.workflowId);
        if (!found.includes(report.workflowId)) await new Promise((r) => setTimeout(r, 200));
      }
      expect(found).toContain(report.workflowId);
    } finally {
      await workers.shutdown();
    }
  });

  it('names the failing part when a queue has no worker', async () => {
    const workers = await startTestWorkers(['pau', 'pau-sandbox']);
    try {
      const report = await runDoctor(stack.client, { queueWaitSeconds: 2 });
      expect(report.ok).toBe(false);
      const byPart = Object.fromEntries(report.results.map((r) => [r.part, r]));
      expect(byPart.gpu?.ok).toBe(false);
      expect(byPart.gpu?.detail).toMatch(/timeout|timed out/i);
      expect(byPart.postgres?.ok).toBe(true);
      expect(byPart.sandbox?.ok).toBe(true);
    } finally {
      await workers.shutdown();
    }
  });

  it('completes the same workflow after its worker is SIGKILLed and restarted', async () => {
    const inProcess: TestWorkers = await startTestWorkers(['pau', 'pau-gpu']);
    let sandboxWorker = await startScript('workers/pau-sandbox.ts', 'ready');
    try {
      sandboxWorker.kill('SIGKILL');
      await new Promise((r) => sandboxWorker.once('exit', r));
      const workflowId = `doctor/test-kill-${Date.now()}`;
      const handle = await stack.client.workflow.start(doctorWorkflow, { taskQueue: 'pau', workflowId, args: [{ queueWaitSeconds: 60 }] });
      // The sandbox part waits: its only worker is dead.
      await new Promise((r) => setTimeout(r, 3000));
      const desc = await handle.describe();
      if (desc.status.name !== 'RUNNING') console.log(JSON.stringify(await handle.result()));
      expect(desc.status.name).toBe('RUNNING');
      sandboxWorker = await startScript('workers/pau-sandbox.ts', 'ready');
      const results = await handle.result();
      expect(results.every((r) => r.ok)).toBe(true);
      expect(results.find((r) => r.part === 'sandbox')?.detail).toContain('probe(10) = 285');
    } finally {
      sandboxWorker.kill('SIGTERM');
      await inProcess.shutdown();
    }
  });

  it('`pau doctor` prints the table and exits 0 with workers running', async () => {
    const workers = await startTestWorkers(['pau', 'pau-sandbox', 'pau-gpu']);
    try {
      const r = await runCli(['doctor']);
      expect(r.stderr).not.toContain('FAILED');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/postgres\s+pau\s+PASS/);
      expect(r.stdout).toMatch(/sandbox\s+pau-sandbox\s+PASS/);
      expect(r.stdout).toMatch(/gpu\s+pau-gpu\s+PASS/);
    } finally {
      await workers.shutdown();
    }
  });
});

describe('worker processes', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('workers/all.ts serves all three queues and stops cleanly on %s', async (signal) => {
    const child = await startScript('workers/all.ts', 'worker pau-gpu: ready');
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    // It really serves: a doctor run passes with no other worker running.
    const report = await runDoctor(stack.client, { queueWaitSeconds: 20 });
    expect(report.ok).toBe(true);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill(signal);
    expect(await exited).toBe(0);
    expect(out).toContain(`workers: ${signal} received, shutting down`);
    expect(out).toContain('workers: stopped');
  });
});
