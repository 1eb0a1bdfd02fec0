// The checkpoint registry and the SFT run workflow on the real stack: `ckpt:<id>` resolved from Postgres by
// workers already running, one checkpoint row per trainer job however often registration runs, an unusable,
// missing or corrupt base model failing the run at once with a clear non-retryable error, and a real SFT
// run on SmolLM2-135M (CPU) that lowers the training loss and registers exactly one servable checkpoint.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reports } from '../../db/schema/reports';
import { episodes, runs } from '../../db/schema/runs';
import { checkpoints } from '../../db/schema/training';
import { createCheckpointActivities, registerCheckpointRow } from '../../activities/training/checkpoints';
import { startSftTrain } from '../../scripts/client/starters';
import { checkpointModelName, sftCheckpointId, sftJobId } from '../../domain/training/checkpointIds';
import type { SftTrainConfig } from '../../domain/training/sftTrain';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import { TRAINER_FAILURE } from '../../domain/temporal/failureTypes';
import { ADD, insertFixtureMethods, RAISES, REVERSE } from '../fixtures/episodeMethods';
import { insertTestRun } from '../fixtures/runs';
import { runEpisode } from '../episode/helpers';
import { useStack } from '../helpers/stack';
import { buildOracleSftData, maybeRecordHistory, type PrivateTrainerDirs, privateTrainerDirs } from './helpers';
import { resolveModel } from '../../activities/llm/checkpointModels';
import { chat } from '../../activities/llm/chat';
import { planFor, stopLocalServer } from '../../platform/models/local/server';
import { hostEndpoints } from '../../activities/llm/hostEndpoints';

const DATA = 'sft-train-fixture';
let dirs: PrivateTrainerDirs | undefined;

const stack = useStack({
  workers: ['pau', 'pau-sandbox', 'pau-gpu'],
  timeoutMs: 1_200_000,
  setup: async ({ db }) => {
    // The gpu worker (in this process) gets a private models dir, with a corrupt model beside the real one.
    dirs = await privateTrainerDirs('sft');
    fs.writeFileSync(path.join(dirs.modelsDir, 'corrupt.gguf'), crypto.randomBytes(4096));
    await insertFixtureMethods(db, 'fixture-sft-train', [ADD, REVERSE, RAISES], 'train');
  },
});

afterAll(() => dirs?.release());

beforeAll(async () => {
  const build = await buildOracleSftData(stack.client, DATA, 'fixture-sft-train');
  await maybeRecordHistory(build, 'sftBuild.json');
}, 300_000);

const trainConfig = (base: string, extra: Partial<SftTrainConfig> = {}): SftTrainConfig => ({
  data: DATA,
  base,
  maxSteps: 3,
  saveEvery: 1,
  lr: 0.003,
  maxLength: 1024,
  seed: 3,
  eval: null,
  ...extra,
});

/** The failure at the bottom of a failed workflow: [type, message, nonRetryable]. */
async function failureOf(p: Promise<unknown>): Promise<{ type: string | undefined; message: string; nonRetryable: boolean | undefined }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  let cause: unknown = (err as WorkflowFailedError).cause;
  while (cause instanceof ActivityFailure) cause = cause.cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  const a = cause as ApplicationFailure;
  return { type: a.type ?? undefined, message: a.message, nonRetryable: a.nonRetryable ?? undefined };
}

describe('checkpoint registry', () => {
  it('one row per job however often it is registered, and ckpt:<id> resolves for running workers', async () => {
    const runId = `reg-${Date.now().toString(36)}`;
    await insertTestRun(stack.db, runId);
    const record = {
      id: `${runId}-ckpt`,
      runId,
      epoch: 1,
      jobId: `${runId}-job`,
      baseModel: 'mock-oracle',
      parentId: null,
      path: '/nowhere/checkpoint',
      adapterPath: '/nowhere/checkpoint/adapter_model.safetensors',
      adapterSha256: 'a'.repeat(64),
      ggufPath: null,
      ggufSha256: null,
      config: { lr: 1 },
      metrics: { final_loss: 1 },
    };
    const acts = createCheckpointActivities(() => stack.db);
    await acts.registerCheckpoint(record);
    await acts.registerCheckpoint(record);
    await registerCheckpointRow(stack.db, record);
    expect(await stack.db.select().from(checkpoints).where(eq(checkpoints.jobId, record.jobId))).toHaveLength(1);

    // The workers started before this row existed; the episode's model is looked up when it is called.
    const ok = await runEpisode(stack.client, stack.db, ADD.id, checkpointModelName(record.id), 'interactive');
    expect(ok.status).toBe('completed');
    const [ep] = await stack.db.select().from(episodes).where(eq(episodes.id, ok.episodeId));
    expect(ep?.model).toBe(`ckpt:${record.id}`);
    expect(ep?.finalDescription).toBeTruthy();

    const missing = await runEpisode(stack.client, stack.db, ADD.id, 'ckpt:no-such-checkpoint', 'interactive');
    expect(missing.status).toBe('failed');
    expect(missing.error).toContain('no checkpoint "no-such-checkpoint" is registered');
  });
});

describe('sft train', () => {
  it('a base model without weights (the scripted mock) fails the run at once, non-retryable', async () => {
    const runId = `sft-mock-${Date.now().toString(36)}`;
    const f = await failureOf((await startSftTrain(stack.client, runId, trainConfig('mock-oracle'))).result());
    expect(f).toMatchObject({ type: FAILURE_TYPES.baseModelUnusable, nonRetryable: true });
    expect(f.message).toContain('mock-oracle');
    const [run] = await stack.db.select().from(runs).where(eq(runs.id, runId));
    expect(run).toMatchObject({ kind: 'sft', status: 'failed' });
    expect(run?.error).toContain('prepare');
  });

  it('a missing or corrupt base model file is the trainer’s non-retryable TrainerBaseModel error', async () => {
    for (const base of ['local/no-such-model', 'local/corrupt']) {
      const runId = `sft-${base.slice(6)}-${Date.now().toString(36)}`;
      const started = Date.now();
      const f = await failureOf((await startSftTrain(stack.client, runId, trainConfig(base))).result());
      expect(f, base).toMatchObject({ type: TRAINER_FAILURE.baseModel, nonRetryable: true });
      expect(f.message).toContain(base === 'local/corrupt' ? 'corrupt.gguf' : 'no-such-model.gguf');
      expect(Date.now() - started).toBeLessThan(240_000); // no retries
      const [run] = await stack.db.select().from(runs).where(eq(runs.id, runId));
      expect(run?.status).toBe('failed');
      expect(await stack.db.select().from(checkpoints).where(eq(checkpoints.runId, runId))).toHaveLength(0);
    }
  }, 600_000);

  it('trains SmolLM2 on the data set: the loss goes down and exactly one checkpoint is registered', async () => {
    const runId = `sft-real-${Date.now().toString(36)}`;
    const handle = await startSftTrain(stack.client, runId, trainConfig('local/smollm2-135m'));
    const result = await handle.result();
    await maybeRecordHistory(handle, 'sftTrain-no-eval.json');
    expect(result.checkpointId).toBe(sftCheckpointId(runId));
    expect(result.training).toMatchObject({ examples: 3, steps: 3, resumedFromStep: 0, droppedTooLong: 0 });
    expect(result.training.finalLoss!).toBeLessThan(result.training.firstLoss!);
    const rows = await stack.db.select().from(checkpoints).where(eq(checkpoints.runId, runId));
    expect(rows).toHaveLength(1);
    const c = rows[0]!;
    expect(c).toMatchObject({ id: sftCheckpointId(runId), jobId: sftJobId(runId), baseModel: 'local/smollm2-135m', parentId: null, epoch: 1 });
    const sha = (f: string) => crypto.createHash('sha256').update(fs.readFileSync(f)).digest('hex');
    expect(sha(c.adapterPath!)).toBe(c.adapterSha256);
    expect(sha(c.ggufPath!)).toBe(c.ggufSha256);
    expect(fs.existsSync(path.join(c.path, 'DONE'))).toBe(true);
    expect((c.metrics as { losses: number[] }).losses).toHaveLength(3);
    const [run] = await stack.db.select().from(runs).where(eq(runs.id, runId));
    expect(run).toMatchObject({ kind: 'sft', status: 'completed' });
    // The run stored its report at its end (kind sft), with what training left out (issue 23).
    const n = result.training.notAsServed!;
    expect(n).toBeGreaterThanOrEqual(0);
    const [rep] = await stack.db
      .select()
      .from(reports)
      .where(and(eq(reports.runId, runId), eq(reports.kind, 'sft')));
    expect(rep?.text).toContain(`not trained: ${n} of ${3 + n} examples not as served`);
    expect(rep?.text).toContain('; 0 of 3 longer than max_length');

    // Served: ckpt:<id> answers a chat request through llama.cpp with the base + the GGUF adapter.
    const model = checkpointModelName(c.id);
    // The run stored the checkpoint's files; it is served from this host's checkpoint cache, verified.
    const spec = await resolveModel(model, stack.db);
    expect(spec).toMatchObject({ provider: 'local', model: 'smollm2-135m', adapterSha256: c.ggufSha256 });
    expect(spec.loraAdapters).toEqual([expect.stringMatching(new RegExp(`/${c.id}/adapter\\.gguf$`))]);
    expect(sha(spec.loraAdapters![0]!)).toBe(c.ggufSha256);
    try {
      const r = await chat(
        { model, messages: [{ role: 'user', content: 'Say hello.' }], params: { max_tokens: 8 }, callKey: `${runId}#serve` },
        { db: () => stack.db, endpoints: hostEndpoints },
      );
      expect(r.cached).toBe(false);
      expect(r.tokensOut).toBeGreaterThan(0);
      expect((r.message.content ?? '').length + r.message.toolCalls.length).toBeGreaterThan(0);
    } finally {
      await stopLocalServer(planFor(spec).slug);
    }
  }, 900_000);
});
