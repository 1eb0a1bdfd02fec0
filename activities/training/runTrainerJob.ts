// The `runTrainerJob` activity (pau-gpu queue): one trainer job (sft | grpo-update | export-gguf-lora | policy-shift) as a
// child process of the worker (why a child process and not a Python worker: docs/trainer.md).
//   - the job's directory is <PAU_TRAINER_JOBS_DIR or PAU_STATE_DIR/training>/<jobId>: a retry of the
//     activity (same jobId) reruns the same command there, and the trainer resumes from its last complete
//     save; a job that had finished just reports its result again;
//   - one job may run as N processes (PAU_TRAINER_PROCESSES, read by the trainer: torchrun + DDP, rank 0
//     reports; docs/scale.md); nothing changes here: the child is still one process to us;
//   - heartbeats carry step / total / loss / tokens per second (and every few seconds while loading);
//   - activity cancellation -> SIGTERM -> the trainer finishes the step, saves, exits 5 -> CancelledFailure;
//   - exit 2/3/4 (bad spec, base model missing or corrupt, bad data) -> non-retryable ApplicationFailure;
//     a crash (exit 1, a signal) -> retryable, so Temporal's retry resumes from the last save.
import fs from 'node:fs';
import path from 'node:path';
import { CancelledFailure } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { env } from '../../config/env';
import { TRAINER_FAILURE } from '../../domain/temporal/failureTypes';
import { ensureTrainerPython, runTrainerProcess, type TrainerRunResult } from './trainerProcess';
import {
  TRAINER_EXIT,
  trainerJobInputSchema,
  type DoneEvent,
  type TrainerEvent,
  type TrainerHeartbeat,
  type TrainerJobInput,
  type TrainerJobResult,
} from '../../domain/training/trainerProtocol';
import { currentActivity } from '../common/workflowContext';
import { ensurePrivateDir, writePrivateFile } from '../../platform/process/privateFiles';
import type { Db } from '../../db/client';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import { CHECKPOINT_FILE_NAMES } from '../../domain/training/checkpointRecord';
import { checkpointFileFailure, materializeCheckpoint } from './checkpointFiles';
import { sha256File } from '../../platform/storage/blobStore';
import { BASE_ADAPTER, sampledWithRefusal } from '../../domain/training/sampledWith';

/** Where a job's directory lives; deterministic from the job id so retries land in the same place. */
export function trainerJobDir(jobId: string): string {
  const root = process.env.PAU_TRAINER_JOBS_DIR?.trim() || path.join(env().PAU_STATE_DIR, 'training');
  return path.join(path.resolve(root), jobId);
}

function failure(type: string, message: string, nonRetryable: boolean): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable });
}

/** The spec file the trainer reads: the caller's spec plus the job-owned paths. */
function writeSpec(input: TrainerJobInput, dir: string): string {
  ensurePrivateDir(dir);
  const spec =
    input.command === 'export-gguf-lora'
      ? { ...input.spec, output: input.spec.output ?? path.join(dir, 'adapter.gguf'), output_dir: dir }
      : { ...input.spec, output_dir: dir };
  const file = path.join(dir, 'spec.json');
  writePrivateFile(file, JSON.stringify(spec, null, 2));
  return file;
}

export function outcome(input: TrainerJobInput, dir: string, r: TrainerRunResult): TrainerJobResult {
  const last = <T extends TrainerEvent['type']>(t: T) => r.events.filter((e): e is Extract<TrainerEvent, { type: T }> => e.type === t).pop();
  const err = last('error');
  const what = `trainer ${input.command} job ${input.jobId}`;
  if (r.exitCode === TRAINER_EXIT.ok) {
    const done = last('done');
    if (!done) throw failure(TRAINER_FAILURE.crashed, `${what} exited 0 without a done event; stderr: ${r.stderrTail.slice(-1000)}`, false);
    const start = last('start');
    return {
      jobId: input.jobId,
      command: input.command,
      outputDir: dir,
      done: done as DoneEvent,
      ...(start ? { resumedFromStep: start.resumed_from_step } : {}),
    };
  }
  if (r.exitCode === TRAINER_EXIT.cancelled) {
    const c = last('cancelled');
    const where = c?.checkpoint ? ` (saved at step ${c.step}: ${c.checkpoint})` : '';
    if (r.cancelRequested) throw new CancelledFailure(`${what} cancelled${where}`);
    throw failure(TRAINER_FAILURE.interrupted, `${what} was stopped by SIGTERM from outside${where}; a retry resumes`, false);
  }
  const nonRetryable: Record<number, string> = {
    [TRAINER_EXIT.invalidSpec]: TRAINER_FAILURE.invalidSpec,
    [TRAINER_EXIT.baseModel]: TRAINER_FAILURE.baseModel,
    [TRAINER_EXIT.invalidData]: TRAINER_FAILURE.invalidData,
  };
  const type = r.exitCode !== null ? nonRetryable[r.exitCode] : undefined;
  if (type) throw failure(type, `${what}: ${err?.message ?? `exit ${r.exitCode}`}`, true);
  const how = r.signal ? `was killed by ${r.signal}` : `exited ${r.exitCode}`;
  const saved = last('saved');
  throw failure(
    TRAINER_FAILURE.crashed,
    `${what} ${how}${err ? `: ${err.message}` : ''}${saved ? ` (last save: step ${saved.step})` : ''}; stderr: ${r.stderrTail.slice(-1500)}`,
    false,
  );
}

/**
 * The job's spec with an init adapter this host can read: the directory named in the spec when it exists
 * here (the host that trained it, or shared storage: the spec is then unchanged, so a resumed job's
 * fingerprint still matches; one without DONE is refused by the trainer as before, a local fault to see),
 * else the registered checkpoint's stored files fetched into this host's checkpoint cache and verified by
 * hash (activities/training/checkpointFiles.ts).
 */
export async function withLocalInitAdapter(input: TrainerJobInput, db: (() => Db) | undefined): Promise<TrainerJobInput> {
  if (input.command === 'export-gguf-lora' || input.command === 'policy-shift' || !input.initCheckpoint || !input.spec.init_adapter) return input;
  if (fs.existsSync(input.spec.init_adapter)) return input;
  const what = `init adapter ${input.spec.init_adapter} (checkpoint ${input.initCheckpoint})`;
  if (!db) throw failure(FAILURE_TYPES.checkpointFileMissing, `${what} is not on this host, and this worker has no database to fetch it from`, true);
  let local: Awaited<ReturnType<typeof materializeCheckpoint>>;
  try {
    local = await materializeCheckpoint(db(), input.initCheckpoint, { names: [CHECKPOINT_FILE_NAMES.adapter, CHECKPOINT_FILE_NAMES.config] });
  } catch (err) {
    throw checkpointFileFailure(err) ?? err;
  }
  if (!local)
    throw failure(
      FAILURE_TYPES.checkpointFileMissing,
      `${what} is not on this host, and no files of it are stored (registered before checkpoints travelled)`,
      true,
    );
  return { ...input, spec: { ...input.spec, init_adapter: local.dir } } as TrainerJobInput;
}

/**
 * The adapter a grpo-update computes its old log-probs with: the init adapter's file as this host holds it
 * (what the trainer loads), or `base` for a fresh adapter (LoRA B zero: the old log-probs are the base's).
 * Undefined when the file is missing: the trainer refuses an incomplete init adapter itself.
 */
async function oldLogprobAdapter(spec: { init_adapter?: string | null | undefined }): Promise<string | undefined> {
  if (!spec.init_adapter) return BASE_ADAPTER;
  const file = path.join(spec.init_adapter, CHECKPOINT_FILE_NAMES.adapter);
  return fs.existsSync(file) ? (await sha256File(file)).sha256 : undefined;
}

/** Sampled-with = trained-on: a batch with a rollout another adapter sampled is refused before the trainer starts. */
export async function checkSampledWith(input: TrainerJobInput): Promise<void> {
  if (input.command !== 'grpo-update' || !input.sampledWith) return;
  const adapter = await oldLogprobAdapter(input.spec);
  if (adapter === undefined) return;
  const refusal = sampledWithRefusal(input.sampledWith, adapter);
  if (refusal) throw failure(FAILURE_TYPES.sampledWithMismatch, `trainer grpo-update job ${input.jobId}: ${refusal}`, true);
}

export interface TrainingActivitiesOptions {
  /** Postgres, for fetching an init adapter this host does not have (the gpu worker passes it). */
  db?: () => Db;
  /** Extra environment for the trainer (tests: threads, cache dir). */
  trainerEnv?: NodeJS.ProcessEnv;
  /** Seconds between heartbeats while no event arrives (model loading, GGUF conversion). */
  idleHeartbeatS?: number;
}

export function createTrainingActivities(opts: TrainingActivitiesOptions = {}) {
  async function runTrainerJob(raw: TrainerJobInput): Promise<TrainerJobResult> {
    const parsed = trainerJobInputSchema.safeParse(raw);
    if (!parsed.success) {
      throw failure(TRAINER_FAILURE.invalidSpec, parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '), true);
    }
    const ctx = currentActivity();
    let beat: TrainerHeartbeat = { phase: 'setup' };
    const heartbeat = (b: Partial<TrainerHeartbeat>) => {
      beat = { ...beat, ...b };
      ctx?.heartbeat(beat);
    };
    heartbeat({});
    const idle = setInterval(() => heartbeat({}), (opts.idleHeartbeatS ?? 5) * 1000);
    try {
      await ensureTrainerPython(() => heartbeat({ phase: 'setup' })).catch((e: unknown) => {
        throw failure(TRAINER_FAILURE.setup, (e as Error).message, false);
      });
      const input = await withLocalInitAdapter(parsed.data, opts.db);
      await checkSampledWith(input);
      const dir = trainerJobDir(input.jobId);
      const specFile = writeSpec(input, dir);
      heartbeat({ phase: 'loading' });
      const result = await runTrainerProcess(input.command, specFile, {
        signal: ctx?.cancellationSignal,
        env: opts.trainerEnv,
        onEvent: (e) => {
          if (e.type === 'info' && e.lock_holder_pid !== undefined) heartbeat({ phase: 'waiting-for-lock', lockHolderPid: e.lock_holder_pid });
          else if (e.type === 'start')
            heartbeat({
              phase: 'training',
              pid: e.pid,
              processes: e.processes ?? 1,
              total: e.total_steps,
              step: e.resumed_from_step,
              lockHolderPid: undefined,
            });
          else if (e.type === 'progress') heartbeat({ phase: 'training', step: e.step, total: e.total, loss: e.loss, tokensPerS: e.tokens_per_s });
          else if (e.type === 'saved') heartbeat({ lastSavedStep: e.step });
        },
      });
      return outcome(input, dir, result);
    } finally {
      clearInterval(idle);
    }
  }

  return { runTrainerJob };
}

export type TrainingActivities = ReturnType<typeof createTrainingActivities>;
