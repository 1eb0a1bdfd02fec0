// The gpu worker killed (SIGKILL) in the middle of an SFT run: the trainer it started sees its stdin close,
// saves and stops; Temporal notices the lost worker by the missed heartbeat and retries the activity on a
// new worker, which resumes the job from its last complete save. The run ends with one checkpoint row.
import type { ChildProcess } from 'node:child_process';
import type { WorkflowHandle } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import type { temporal } from '@temporalio/proto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { checkpoints } from '../../db/schema/training';
import { startSftTrain } from '../../scripts/client/starters';
import { sftJobId } from '../../domain/training/checkpointIds';
import { ADD, insertFixtureMethods, RAISES, REVERSE } from '../fixtures/episodeMethods';
import { startScript } from '../helpers/cli';
import { useStack } from '../helpers/stack';
import { buildOracleSftData, smollm2Path } from './helpers';

let modelsDir = '';
let jobsDir = '';
const children: ChildProcess[] = [];

const stack = useStack({
  workers: ['pau', 'pau-sandbox'],
  timeoutMs: 1_200_000,
  setup: async ({ db }) => {
    modelsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-sft-models-'));
    jobsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-sft-jobs-'));
    fs.symlinkSync(await smollm2Path(), path.join(modelsDir, 'smollm2-135m.gguf'));
    await insertFixtureMethods(db, 'fixture-sft-resume', [ADD, REVERSE, RAISES], 'train');
  },
});

afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of [modelsDir, jobsDir]) if (d) fs.rmSync(d, { recursive: true, force: true });
});

const gpuWorker = async () => {
  const c = await startScript('workers/pau-gpu.ts', 'worker pau-gpu: ready', { PAU_MODELS_DIR: modelsDir, PAU_TRAINER_JOBS_DIR: jobsDir }, 120_000);
  children.push(c);
  return c;
};

const SHORT_HEARTBEAT_S = 15;

/** UpdateActivityOptions on the workflow's trainer activity (runTrainerJob). */
async function activityOptions(
  workflowId: string,
  change: Pick<temporal.api.workflowservice.v1.IUpdateActivityOptionsRequest, 'activityOptions' | 'updateMask' | 'restoreOriginal'>,
) {
  await stack.client.connection.workflowService.updateActivityOptions({
    namespace: stack.client.options.namespace,
    execution: { workflowId },
    type: 'runTrainerJob',
    identity: 'test/training/sftResume',
    ...change,
  });
}

/** Waits until the trainer activity runs its second attempt (the retry on the new worker). */
async function retryRunning(handle: WorkflowHandle): Promise<void> {
  const deadline = Date.now() + 600_000;
  for (;;) {
    const pending = (await handle.describe()).raw.pendingActivities ?? [];
    if (pending.some((a) => a.activityType?.name === 'runTrainerJob' && (a.attempt ?? 0) >= 2)) return;
    if (Date.now() > deadline) throw new Error('the trainer activity was not retried within 10 minutes');
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('sft train across a gpu worker crash', () => {
  it('resumes from the last save after SIGKILL and registers one checkpoint', async () => {
    const data = `resume-${Date.now().toString(36)}`;
    await buildOracleSftData(stack.client, data, 'fixture-sft-resume');

    const first = await gpuWorker();
    const runId = `sft-kill-${Date.now().toString(36)}`;
    const handle = await startSftTrain(stack.client, runId, {
      data,
      base: 'local/smollm2-135m',
      epochs: 2,
      maxSteps: 4,
      saveEvery: 1,
      lr: 0.003,
      maxLength: 1024,
      seed: 3,
      eval: null,
    });
    // Wait for the save at step 2, then kill the worker without any chance to clean up.
    const save = path.join(jobsDir, sftJobId(runId), 'checkpoints', 'step-000002', 'DONE');
    const deadline = Date.now() + 600_000;
    while (!fs.existsSync(save)) {
      if (Date.now() > deadline) throw new Error('no save at step 2 within 10 minutes');
      await new Promise((r) => setTimeout(r, 500));
    }
    first.kill('SIGKILL');
    const killedAt = Date.now();
    await new Promise((r) => first.once('exit', r));
    // Temporal notices the lost worker only when the activity's heartbeat timeout passes (1 minute, POLICIES.training):
    // most of this test's time was that wait. The killed attempt's timeout is shortened here (the server's
    // UpdateActivityOptions), so the retry still comes from the missed heartbeat, just sooner; once the retry runs,
    // the original options are restored (the new worker keeps heartbeating well within either timeout).
    await activityOptions(handle.workflowId, {
      activityOptions: { heartbeatTimeout: msToTs(`${SHORT_HEARTBEAT_S}s`) },
      updateMask: { paths: ['heartbeat_timeout'] },
    });
    await gpuWorker();
    await retryRunning(handle);
    console.log(`sft resume: the trainer activity's second attempt came ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the worker's SIGKILL`);
    await activityOptions(handle.workflowId, { restoreOriginal: true });

    const result = await handle.result();
    expect(result.training.steps).toBe(4);
    expect(result.training.resumedFromStep).toBeGreaterThanOrEqual(2);
    expect(result.training.resumedFromStep).toBeLessThan(4);
    expect((await stack.db.select().from(checkpoints).where(eq(checkpoints.runId, runId))).length).toBe(1);
    // The activity ran twice: the attempt on the killed worker timed out on its heartbeat.
    let attempts = 0;
    for (const e of (await handle.fetchHistory()).events ?? []) {
      const started = e.activityTaskStartedEventAttributes;
      if (started) attempts = Math.max(attempts, started.attempt ?? 0);
    }
    expect(attempts).toBeGreaterThanOrEqual(2);
  }, 1_200_000);
});
