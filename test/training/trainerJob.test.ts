// runTrainerJob (pau-gpu) against the real trainer on SmolLM2-135M, CPU, tiny jobs: the loss goes down on a
// memorisation set, a SIGKILLed trainer is resumed from its last save by the activity's retry, and activity
// cancellation makes the trainer save and stop. Runs the activity in Temporal's MockActivityEnvironment
// (real activity context: heartbeats and cancellation), so no worker is needed.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CancelledFailure } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTrainingActivities, trainerJobDir } from '../../activities/training/runTrainerJob';
import { TRAINER_FAILURE } from '../../domain/temporal/failureTypes';
import type { TrainerHeartbeat, TrainerJobInput, TrainerJobResult } from '../../domain/training/trainerProtocol';
import { smollm2Path, TRAINER_DATA } from './helpers';

let model = '';
let jobsDir = '';
const savedJobsDir = process.env.PAU_TRAINER_JOBS_DIR;
const { runTrainerJob } = createTrainingActivities({ trainerEnv: { PAU_TRAINER_THREADS: '1' }, idleHeartbeatS: 2 });

beforeAll(async () => {
  model = await smollm2Path();
  jobsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-trainer-jobs-'));
  process.env.PAU_TRAINER_JOBS_DIR = jobsDir;
}, 1_200_000);

afterAll(() => {
  if (savedJobsDir === undefined) delete process.env.PAU_TRAINER_JOBS_DIR;
  else process.env.PAU_TRAINER_JOBS_DIR = savedJobsDir;
  if (jobsDir) fs.rmSync(jobsDir, { recursive: true, force: true });
});

function sftJob(jobId: string, extra: Record<string, unknown> = {}): TrainerJobInput {
  return {
    jobId,
    command: 'sft',
    spec: {
      base_model: model,
      data: path.join(TRAINER_DATA, 'marker_sft.jsonl'),
      lr: 0.003,
      epochs: 2,
      max_length: 96,
      seed: 5,
      save_every: 2,
      lora: { rank: 8, alpha: 16, targets: ['q_proj', 'v_proj'] },
      ...extra,
    },
  };
}

function withHeartbeats(onBeat?: (b: TrainerHeartbeat, env: MockActivityEnvironment) => void) {
  const env = new MockActivityEnvironment();
  const beats: TrainerHeartbeat[] = [];
  env.on('heartbeat', (d: TrainerHeartbeat) => {
    beats.push(d);
    onBeat?.(d, env);
  });
  return { env, beats };
}

describe('runTrainerJob (sft on SmolLM2)', () => {
  it('lowers the loss; a SIGKILLed trainer is resumed from its last save by the retry', async () => {
    const input = sftJob('sft-kill');
    let killed = false;
    const first = withHeartbeats((b) => {
      // kill -9 the trainer while it trains step 3, after the save at step 2
      if (!killed && b.lastSavedStep === 2 && b.pid) {
        killed = true;
        process.kill(b.pid, 'SIGKILL');
      }
    });
    const err = await first.env.run(runTrainerJob, input).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(killed).toBe(true);
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect((err as ApplicationFailure).type).toBe(TRAINER_FAILURE.crashed);
    expect((err as ApplicationFailure).nonRetryable).toBe(false);
    expect((err as ApplicationFailure).message).toMatch(/killed by SIGKILL.*last save: step 2/);
    // heartbeats carried progress
    const trained = first.beats.filter((b) => b.phase === 'training' && typeof b.loss === 'number');
    expect(trained.length).toBeGreaterThanOrEqual(2);
    expect(trained[0]!).toMatchObject({ step: 1, total: 6 });
    expect(trained[0]!.tokensPerS).toBeGreaterThan(0);

    // the retry (same job id) resumes at step 2: steps 3..6 run once each
    const retry = withHeartbeats();
    const result: TrainerJobResult = await retry.env.run(runTrainerJob, input);
    const steps = retry.beats.filter((b) => b.phase === 'training' && typeof b.loss === 'number').map((b) => b.step);
    expect([...new Set(steps)]).toEqual([3, 4, 5, 6]);
    expect(result.done.steps).toBe(6);
    expect(result.outputDir).toBe(trainerJobDir('sft-kill'));
    expect(fs.existsSync(path.join(result.done.checkpoint, 'DONE'))).toBe(true);
    const losses = result.done.metrics.losses as number[];
    expect(losses).toHaveLength(6);
    // every example is seen once per epoch: the second epoch's mean loss is below the first's
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(mean(losses.slice(3))).toBeLessThan(0.8 * mean(losses.slice(0, 3)));

    // a further retry of the finished job reports the same result without training again
    const again = withHeartbeats();
    const same: TrainerJobResult = await again.env.run(runTrainerJob, input);
    expect(same.done.sha256).toBe(result.done.sha256);
    expect(again.beats.filter((b) => typeof b.loss === 'number')).toHaveLength(0);
  }, 900_000);

  it('activity cancellation: the trainer saves the step it is on and stops', async () => {
    const input = sftJob('sft-cancel', { save_every: 100 });
    const run = withHeartbeats((b, env) => {
      if (b.phase === 'training' && typeof b.loss === 'number' && b.step === 1) env.cancel();
    });
    const err = await run.env.run(runTrainerJob, input).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CancelledFailure);
    expect((err as Error).message).toMatch(/cancelled \(saved at step \d: .*step-00000\d\)/);
    const ckpts = fs.readdirSync(path.join(trainerJobDir('sft-cancel'), 'checkpoints'));
    expect(ckpts).toHaveLength(1);
    expect(fs.existsSync(path.join(trainerJobDir('sft-cancel'), 'checkpoints', ckpts[0]!, 'DONE'))).toBe(true);
    expect(fs.existsSync(path.join(trainerJobDir('sft-cancel'), 'result.json'))).toBe(false);
  }, 900_000);

  it('a job of 2 processes (PAU_TRAINER_PROCESSES=2): heartbeats say so, and cancellation saves and stops every rank', async () => {
    const two = createTrainingActivities({ trainerEnv: { PAU_TRAINER_THREADS: '1', PAU_TRAINER_PROCESSES: '2' }, idleHeartbeatS: 2 });
    const input = sftJob('sft-cancel-2', { save_every: 100, batch_size: 2 });
    const run = withHeartbeats((b, env) => {
      if (b.phase === 'training' && typeof b.loss === 'number' && b.step === 1) env.cancel();
    });
    const err = await run.env.run(two.runTrainerJob, input).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(run.beats.find((b) => b.phase === 'training')?.processes).toBe(2);
    expect(err).toBeInstanceOf(CancelledFailure);
    expect((err as Error).message).toMatch(/cancelled \(saved at step \d: .*step-00000\d\)/);
    const ckpts = fs.readdirSync(path.join(trainerJobDir('sft-cancel-2'), 'checkpoints'));
    expect(ckpts).toHaveLength(1);
    expect(fs.existsSync(path.join(trainerJobDir('sft-cancel-2'), 'checkpoints', ckpts[0]!, 'DONE'))).toBe(true);

    const bad = createTrainingActivities({ trainerEnv: { PAU_TRAINER_PROCESSES: 'many' } });
    const refused = await new MockActivityEnvironment().run(bad.runTrainerJob, sftJob('sft-bad-processes')).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((refused as ApplicationFailure).type).toBe(TRAINER_FAILURE.invalidSpec);
    expect((refused as ApplicationFailure).nonRetryable).toBe(true);
    expect((refused as ApplicationFailure).message).toMatch(/PAU_TRAINER_PROCESSES='many': expected a positive integer or "auto"/);
  }, 900_000);

  it('a missing base model or a bad spec fails without retry', async () => {
    const missing = await new MockActivityEnvironment().run(runTrainerJob, sftJob('sft-missing', { base_model: path.join(jobsDir, 'nope.gguf') })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(missing).toBeInstanceOf(ApplicationFailure);
    expect((missing as ApplicationFailure).type).toBe(TRAINER_FAILURE.baseModel);
    expect((missing as ApplicationFailure).nonRetryable).toBe(true);
    expect((missing as ApplicationFailure).message).toMatch(/nope\.gguf does not exist/);

    const bad = await new MockActivityEnvironment()
      .run(runTrainerJob, { ...sftJob('sft-bad'), spec: { ...sftJob('sft-bad').spec, lr: -1 } } as TrainerJobInput)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect((bad as ApplicationFailure).type).toBe(TRAINER_FAILURE.invalidSpec);
    expect((bad as ApplicationFailure).nonRetryable).toBe(true);
  }, 300_000);
});
