// Sampled-with = trained-on, on the real stack (Temporal, Postgres, sandbox, llama.cpp, the trainer on CPU):
// a GRPO epoch continues from checkpoint A (two real SmolLM2 adapters, A and B, trained one SFT step each and
// exported), and while its first rollout runs the checkpoint served as `ckpt:A` is swapped for B's files. Every
// turn records the adapter that served it, so the epoch's second rollout says B; the update, which computes its
// old log-probs with A, refuses the batch non-retryably (SampledWithMismatch) naming both hashes, and nothing is
// trained: no trainer job directory, no checkpoint of the epoch, the run failed at its update.
import fs from 'node:fs';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { registerCheckpointRow } from '../../activities/training/checkpoints';
import { checkSampledWith, createTrainingActivities, trainerJobDir } from '../../activities/training/runTrainerJob';
import { env } from '../../config/env';
import { episodes, runs } from '../../db/schema/runs';
import { checkpoints } from '../../db/schema/training';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { trainedCheckpointRecord } from '../../domain/training/checkpointRecord';
import { BASE_ADAPTER } from '../../domain/training/sampledWith';
import { grpoCheckpointId, grpoJobId, grpoSearchAttributes, grpoWorkflowId, ROLLOUT_SAMPLING } from '../../domain/training/grpo';
import type { TrainerJobInput, TrainerJobResult } from '../../domain/training/trainerProtocol';
import { grpoWorkflow } from '../../workflows/training/grpoWorkflow';
import { ADD, insertFixtureMethods } from '../fixtures/episodeMethods';
import { grpoConfig, SMOLLM2_TOY_RUN } from '../fixtures/grpoConfig';
import { useStack } from '../helpers/stack';
import { markerSftSpec, maybeRecordHistory, type PrivateTrainerDirs, privateTrainerDirs, smollm2Path } from './helpers';

let dirs: PrivateTrainerDirs | undefined;
const dataset = 'fixture-sampled-with';
const stack = useStack({
  workers: ['pau', 'pau-sandbox', 'pau-gpu'],
  timeoutMs: 600_000,
  setup: async ({ db }) => {
    dirs = await privateTrainerDirs('sampled-with');
    await insertFixtureMethods(db, dataset, [ADD], 'train');
  },
});
afterAll(() => dirs?.release());

const { runTrainerJob } = createTrainingActivities({ trainerEnv: { PAU_TRAINER_THREADS: '1' } });
const runJob = (input: TrainerJobInput): Promise<TrainerJobResult> => new MockActivityEnvironment().run(runTrainerJob, input);

/** A real SmolLM2 adapter (one SFT step: its seed makes it differ from another) and its GGUF export. */
async function adapter(jobId: string, seed: number): Promise<{ trained: TrainerJobResult; exported: TrainerJobResult }> {
  const base = await smollm2Path();
  const trained = await runJob({ jobId, command: 'sft', spec: markerSftSpec(base, seed) });
  const exported = await runJob({ jobId: `${jobId}-gguf`, command: 'export-gguf-lora', spec: { adapter_dir: trained.done.checkpoint, base_model: base } });
  return { trained, exported };
}

describe('sampled-with = trained-on', () => {
  it('a checkpoint swapped mid-epoch: the rollouts record it, the update refuses the batch naming both adapters, nothing is trained', async () => {
    const runId = `sampled-with-${Date.now().toString(36)}`;
    const config = grpoConfig({
      ...SMOLLM2_TOY_RUN,
      dataset,
      // One rollout at a time: the second starts after the swap.
      rolloutWindow: 1,
      evalEvery: 100,
      sandbox: env().PAU_SANDBOX_PLACEMENT,
      sampling: ROLLOUT_SAMPLING,
    });
    // Epoch 1 of the run produced checkpoint A (trained here directly); B is another adapter of the same base.
    const a = await adapter(`${runId}-a`, 5);
    const b = await adapter(`${runId}-b`, 6);
    expect(a.trained.done.sha256).not.toBe(b.trained.done.sha256);
    await stack.db.insert(runs).values({ id: runId, kind: 'grpo', status: 'running', config, startedAt: new Date() });
    const aId = grpoCheckpointId(runId, 0);
    const ids = { id: aId, runId, epoch: 1, jobId: a.trained.jobId, baseModel: config.base, parentId: null };
    // Registered without stored files: served from the paths recorded here, so the swap below is one row update.
    await registerCheckpointRow(stack.db, trainedCheckpointRecord(ids, a.trained.done, a.exported.done, {}));

    const handle = await stack.client.workflow.start(grpoWorkflow, {
      taskQueue: TASK_QUEUES.main,
      workflowId: grpoWorkflowId(runId),
      args: [{ runId, config, epoch: 1, previousCheckpointId: aId, previousCheckpointPath: a.trained.done.checkpoint }],
      typedSearchAttributes: grpoSearchAttributes(runId, config, 1),
    });

    // As soon as the first rollout's first turn is recorded (served with A), ckpt:A is served with B's files.
    const deadline = Date.now() + 900_000;
    for (;;) {
      const [first] = await stack.db.select({ sampledWith: episodes.sampledWith }).from(episodes).where(eq(episodes.runId, runId));
      if (first?.sampledWith?.length) break;
      if (Date.now() > deadline) throw new Error('the first rollout recorded no turn in time');
      await new Promise((r) => setTimeout(r, 100));
    }
    await stack.db
      .update(checkpoints)
      .set({ adapterPath: b.trained.done.adapter, adapterSha256: b.trained.done.sha256, ggufPath: b.exported.done.adapter, ggufSha256: b.exported.done.sha256 })
      .where(eq(checkpoints.id, aId));

    const failure = await handle.result().then(
      () => undefined,
      (e: unknown) => e,
    );
    // With PAU_RECORD_HISTORIES=1: the replay fixture of an epoch whose update checks what sampled its rollouts.
    await maybeRecordHistory(handle, 'grpo-sampled-with-refused.json');
    let cause: unknown = failure;
    while (cause instanceof Error && !(cause instanceof ApplicationFailure)) cause = cause.cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    const refusal = cause as ApplicationFailure;
    expect(refusal.type).toBe(FAILURE_TYPES.sampledWithMismatch);
    expect(refusal.nonRetryable).toBe(true);
    // Both hashes named: the adapter the update computes old log-probs with (A), the one that sampled the second rollout (B).
    expect(refusal.message).toContain(`computes old log-probs with (${a.trained.done.sha256})`);
    expect(refusal.message).toContain(`sampled with ${b.trained.done.sha256}`);

    // What each rollout recorded: the first began with A, the second was served by B alone.
    const eps = await stack.db.select().from(episodes).where(eq(episodes.runId, runId)).orderBy(episodes.sample);
    expect(eps.map((e) => e.sample)).toEqual([1000, 1001]);
    expect(eps[0]!.sampledWith![0]).toBe(a.trained.done.sha256);
    expect(eps[1]!.sampledWith).toEqual([b.trained.done.sha256]);
    expect(refusal.message).toContain(eps[1]!.id);

    // Refused once (not retried), before the trainer started: no job directory, no checkpoint of this epoch.
    const events = (await handle.fetchHistory()).events ?? [];
    const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTrainerJob');
    expect(scheduled).toHaveLength(1);
    const started = events.find((e) => String(e.activityTaskStartedEventAttributes?.scheduledEventId) === String(scheduled[0]!.eventId));
    expect(started?.activityTaskStartedEventAttributes?.attempt).toBe(1);
    expect(fs.existsSync(trainerJobDir(grpoJobId(runId, 1)))).toBe(false);
    expect(
      await stack.db
        .select()
        .from(checkpoints)
        .where(eq(checkpoints.id, grpoCheckpointId(runId, 1))),
    ).toHaveLength(0);
    // The same check passes the batch recorded as A's: the served label and the trainer's hash are one hash.
    const batch = (adapter: string) => eps.map((e) => ({ id: e.id, sampledWith: [adapter] }));
    const job = (adapter: string): TrainerJobInput => ({
      jobId: 'sampled-with-check',
      command: 'grpo-update',
      spec: { base_model: 'unused.gguf', rollouts: 'unused.jsonl', init_adapter: a.trained.done.checkpoint },
      sampledWith: batch(adapter),
    });
    await expect(checkSampledWith(job(a.trained.done.sha256))).resolves.toBeUndefined();
    await expect(checkSampledWith(job(BASE_ADAPTER))).rejects.toThrow('2 sampled with base');
    const [run] = await stack.db.select().from(runs).where(eq(runs.id, runId));
    expect(run!.status).toBe('failed');
    expect(run!.error).toContain('epoch 2 update');
  }, 1_500_000);
});
