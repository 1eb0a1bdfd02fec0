// Checkpoints that travel (docs/checkpoints.md): a real SmolLM2 adapter trained (1 SFT step) and exported in
// job directory A, its files stored in Postgres and its checkpoint registered; A is deleted; host B (its own
// checkpoint cache) resolves `ckpt:<id>`, fetches and verifies the GGUF and a real llama.cpp server answers
// with it; B continues from it (runTrainerJob fetches the adapter directory and trains a GRPO step from it);
// storing is idempotent; a tampered stored blob is refused on a third host with a typed
// non-retryable error and nothing is written there, while B's verified copy keeps serving.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chat } from '../../activities/llm/chat';
import { resolveModel } from '../../activities/llm/checkpointModels';
import { planFor, stopLocalServer } from '../../platform/models/local/server';
import { BlobCorruptError, BlobStore, sha256File } from '../../platform/storage/blobStore';
import { materializeCheckpoint, storeCheckpointFiles } from '../../activities/training/checkpointFiles';
import { registerCheckpointRow } from '../../activities/training/checkpoints';
import { createTrainingActivities, withLocalInitAdapter } from '../../activities/training/runTrainerJob';
import { reloadEnv } from '../../config/env';
import { blobChunks, blobs, checkpointFiles } from '../../db/schema/blobs';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import { checkpointModelName } from '../../domain/training/checkpointIds';
import { CHECKPOINT_FILE_NAMES, checkpointFilesOf, trainedCheckpointRecord } from '../../domain/training/checkpointRecord';
import type { TrainerJobInput, TrainerJobResult } from '../../domain/training/trainerProtocol';
import { insertTestRun } from '../fixtures/runs';
import { useStack } from '../helpers/stack';
import { markerSftSpec, smollm2Path, TRAINER_DATA } from './helpers';
import { hostEndpoints } from '../../activities/llm/hostEndpoints';

const stack = useStack();
const tag = Date.now().toString(36);
const runId = `travel-${tag}`;
const ckptId = `travel-${tag}-ckpt`;
const model = checkpointModelName(ckptId);
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-travel-'));
const hostA = { jobs: path.join(root, 'host-a-jobs') };
const hostB = { cache: path.join(root, 'host-b-cache'), jobs: path.join(root, 'host-b-jobs') };
const hostC = { cache: path.join(root, 'host-c-cache') };
const saved = { jobs: process.env.PAU_TRAINER_JOBS_DIR, cache: process.env.PAU_CHECKPOINT_CACHE_DIR };
const { runTrainerJob } = createTrainingActivities({ trainerEnv: { PAU_TRAINER_THREADS: '1' }, db: () => stack.db });
const runJob = (input: TrainerJobInput): Promise<TrainerJobResult> => new MockActivityEnvironment().run(runTrainerJob, input);

let base = '';
let trained: TrainerJobResult;
let exported: TrainerJobResult;
const figures: Record<string, number | string> = {};

function setEnv(k: string, v: string | undefined) {
  if (v === undefined) delete process.env[k];
  else process.env[k] = v;
  reloadEnv();
}

beforeAll(async () => {
  base = await smollm2Path();
  // Host A trains and exports.
  setEnv('PAU_TRAINER_JOBS_DIR', hostA.jobs);
  let t = Date.now();
  trained = await runJob({ jobId: `travel-${tag}-sft`, command: 'sft', spec: markerSftSpec(base, 5) });
  exported = await runJob({ jobId: `travel-${tag}-gguf`, command: 'export-gguf-lora', spec: { adapter_dir: trained.done.checkpoint, base_model: base } });
  figures.trainAndExportS = (Date.now() - t) / 1000;
  expect(trained.outputDir.startsWith(hostA.jobs)).toBe(true);
  await insertTestRun(stack.db, runId);

  // Stored from host A, then registered (as the workflows do: storeCheckpointFiles on pau-gpu, registerCheckpoint on pau).
  t = Date.now();
  const stored = await storeCheckpointFiles(new BlobStore(stack.db), checkpointFilesOf(trained.done, exported.done));
  figures.storeMs = Date.now() - t;
  for (const f of stored.files) figures[`bytes ${f.name}`] = f.bytes;
  expect(stored.writtenBytes).toBe(stored.files.reduce((n, f) => n + f.bytes, 0));
  await registerCheckpointRow(stack.db, {
    ...trainedCheckpointRecord(
      { id: ckptId, runId, epoch: 1, jobId: trained.jobId, baseModel: 'local/smollm2-135m', parentId: null },
      trained.done,
      exported.done,
      {},
    ),
    files: stored.files,
  });
  // Host A's files are gone: whatever serves or continues from the checkpoint now must fetch it.
  fs.rmSync(hostA.jobs, { recursive: true, force: true });
  setEnv('PAU_TRAINER_JOBS_DIR', hostB.jobs);
  setEnv('PAU_CHECKPOINT_CACHE_DIR', hostB.cache);
}, 1_200_000);

afterAll(() => {
  setEnv('PAU_TRAINER_JOBS_DIR', saved.jobs);
  setEnv('PAU_CHECKPOINT_CACHE_DIR', saved.cache);
  fs.rmSync(root, { recursive: true, force: true });
  console.log(`checkpoint travel figures: ${JSON.stringify(figures)}`);
});

describe('checkpoints that travel', () => {
  it('storing is content-addressed and idempotent; a file changed since the trainer wrote it is refused', async () => {
    const files = await stack.db.select().from(checkpointFiles).where(eq(checkpointFiles.checkpointId, ckptId)).orderBy(checkpointFiles.name);
    expect(files.map((f) => f.name)).toEqual([CHECKPOINT_FILE_NAMES.config, CHECKPOINT_FILE_NAMES.gguf, CHECKPOINT_FILE_NAMES.adapter].sort());
    expect(files.find((f) => f.name === CHECKPOINT_FILE_NAMES.adapter)?.sha256).toBe(trained.done.sha256);
    expect(files.find((f) => f.name === CHECKPOINT_FILE_NAMES.gguf)?.sha256).toBe(exported.done.sha256);

    // Same bytes again (a retried activity, another checkpoint with an identical file): nothing written.
    const dir = fs.mkdtempSync(path.join(root, 'again-'));
    const copy = path.join(dir, 'copy.bin');
    const [gguf] = files.filter((f) => f.name === CHECKPOINT_FILE_NAMES.gguf);
    const chunksBefore = await stack.db.select({ n: sql<number>`count(*)::int` }).from(blobChunks);
    await new BlobStore(stack.db).fetchTo(gguf!.sha256, copy);
    const again = await new BlobStore(stack.db).put(copy, gguf!.sha256);
    expect(again).toEqual({ sha256: gguf!.sha256, bytes: gguf!.bytes, written: false });
    expect(await stack.db.select({ n: sql<number>`count(*)::int` }).from(blobChunks)).toEqual(chunksBefore);

    // A file whose bytes no longer hash to what the trainer reported: refused, nothing stored.
    fs.appendFileSync(copy, 'x');
    const changed = await sha256File(copy);
    await expect(new BlobStore(stack.db).put(copy, gguf!.sha256)).rejects.toThrow(BlobCorruptError);
    expect(await stack.db.select().from(blobs).where(eq(blobs.sha256, changed.sha256))).toHaveLength(0);
  });

  it('host B serves the checkpoint from its verified copy: a real llama.cpp server with the fetched GGUF LoRA', async () => {
    const t = Date.now();
    const spec = await resolveModel(model, stack.db);
    figures.fetchVerifyGgufMs = Date.now() - t;
    const gguf = path.join(hostB.cache, ckptId, CHECKPOINT_FILE_NAMES.gguf);
    expect(spec).toMatchObject({ provider: 'local', model: 'smollm2-135m', loraAdapters: [gguf], adapterSha256: exported.done.sha256 });
    expect((await sha256File(gguf)).sha256).toBe(exported.done.sha256);
    const t2 = Date.now();
    await resolveModel(model, stack.db);
    figures.cachedResolveMs = Date.now() - t2;
    try {
      const r = await chat(
        { model, messages: [{ role: 'user', content: 'Say hello.' }], params: { max_tokens: 8 }, callKey: `${runId}#serve` },
        { db: () => stack.db, endpoints: hostEndpoints },
      );
      expect(r.cached).toBe(false);
      expect(r.tokensOut).toBeGreaterThan(0);
    } finally {
      await stopLocalServer(planFor(spec).slug);
    }
  }, 600_000);

  it('host B continues from the checkpoint: the fetched directory is a complete trainer checkpoint', async () => {
    const gone = trained.done.checkpoint;
    expect(fs.existsSync(gone)).toBe(false);
    const t = Date.now();
    const input = await withLocalInitAdapter(
      {
        jobId: `travel-${tag}-next`,
        command: 'grpo-update',
        spec: { base_model: base, rollouts: path.join(TRAINER_DATA, 'tiny_rollouts.jsonl'), init_adapter: gone },
        initCheckpoint: ckptId,
      },
      () => stack.db,
    );
    figures.fetchVerifyAdapterMs = Date.now() - t;
    const dir = path.join(hostB.cache, ckptId);
    expect(input.spec).toMatchObject({ init_adapter: dir });
    expect(fs.readFileSync(path.join(dir, 'DONE'), 'utf8').trim()).toBe(trained.done.sha256);
    // The activity itself (as the next GRPO epoch runs it on a host without A's directory): its trainer
    // continues from the fetched adapter and trains a step.
    const t3 = Date.now();
    const next = await runJob({
      jobId: `travel-${tag}-grpo`,
      command: 'grpo-update',
      spec: {
        base_model: base,
        rollouts: path.join(TRAINER_DATA, 'tiny_rollouts.jsonl'),
        init_adapter: gone,
        lr: 5e-4,
        max_steps: 1,
        mini_batch_size: 2,
        max_length: 160,
        seed: 3,
        advantage: { mode: 'aac' },
      },
      initCheckpoint: ckptId,
    });
    figures.grpoStepOnBS = (Date.now() - t3) / 1000;
    expect(next.outputDir.startsWith(hostB.jobs)).toBe(true);
    expect(next.done.steps).toBe(1);
    expect(next.done.sha256).not.toBe(trained.done.sha256);
    const spec = JSON.parse(fs.readFileSync(path.join(next.outputDir, 'spec.json'), 'utf8')) as { init_adapter: string };
    expect(spec.init_adapter).toBe(dir);
    // The adapter's LoRA config (rank 8, q/v: the checkpoint's, not the spec's default) came with it.
    const cfg = JSON.parse(fs.readFileSync(path.join(next.done.checkpoint, 'adapter_config.json'), 'utf8')) as { r: number; target_modules: string[] };
    expect(cfg.r).toBe(8);
    expect([...cfg.target_modules].sort()).toEqual(['q_proj', 'v_proj']);
  }, 600_000);

  it('a tampered stored blob is refused (typed, non-retryable) and nothing is written; host B keeps its verified copy', async () => {
    const [gguf] = await stack.db
      .select()
      .from(checkpointFiles)
      .where(and(eq(checkpointFiles.checkpointId, ckptId), eq(checkpointFiles.name, CHECKPOINT_FILE_NAMES.gguf)));
    const [chunk] = await stack.db
      .select()
      .from(blobChunks)
      .where(and(eq(blobChunks.sha256, gguf!.sha256), eq(blobChunks.idx, 0)));
    const tampered = Buffer.from(chunk!.data);
    tampered[tampered.length - 1]! ^= 0xff;
    await stack.db
      .update(blobChunks)
      .set({ data: tampered })
      .where(and(eq(blobChunks.sha256, gguf!.sha256), eq(blobChunks.idx, 0)));
    try {
      // A third host with an empty cache.
      await expect(materializeCheckpoint(stack.db, ckptId, { cacheDir: hostC.cache })).rejects.toThrow(/corrupt.*refused/);
      expect(fs.existsSync(path.join(hostC.cache, ckptId)) ? fs.readdirSync(path.join(hostC.cache, ckptId)).filter((n) => n.includes('gguf')) : []).toEqual([]);
      setEnv('PAU_CHECKPOINT_CACHE_DIR', hostC.cache);
      const err = await chat(
        { model, messages: [{ role: 'user', content: 'hi' }], callKey: `${runId}#tampered` },
        { db: () => stack.db, endpoints: hostEndpoints },
      ).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ApplicationFailure);
      expect(err).toMatchObject({ type: FAILURE_TYPES.checkpointFileCorrupt, nonRetryable: true });
      expect((err as Error).message).toContain(gguf!.sha256);

      // Host B verified its copy when it fetched it; it still serves from it without touching the store.
      setEnv('PAU_CHECKPOINT_CACHE_DIR', hostB.cache);
      const spec = await resolveModel(model, stack.db);
      expect(spec.loraAdapters).toEqual([path.join(hostB.cache, ckptId, CHECKPOINT_FILE_NAMES.gguf)]);
      // A cached copy that went bad is fetched again, and with the store tampered that is refused too.
      fs.appendFileSync(spec.loraAdapters![0]!, 'x');
      await expect(resolveModel(model, stack.db)).rejects.toThrow(BlobCorruptError);
    } finally {
      await stack.db
        .update(blobChunks)
        .set({ data: chunk!.data })
        .where(and(eq(blobChunks.sha256, gguf!.sha256), eq(blobChunks.idx, 0)));
    }
    // Repaired store: the bad cached copy is replaced by a verified one.
    const spec = await resolveModel(model, stack.db);
    expect((await sha256File(spec.loraAdapters![0]!)).sha256).toBe(exported.done.sha256);
  });
});
