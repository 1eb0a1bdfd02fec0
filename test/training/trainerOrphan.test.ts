// A trainer dies with the worker that spawned it (trainer/pau_trainer/parent_watch.py). Before, a SIGKILLed
// pau-gpu worker left its trainer running (it noticed stdin EOF only between optimizer steps) and holding the
// job directory's lock, so the retry's trainer waited forever in `loading`. Here a disposable parent process
// (test/training/trainerParent.ts) runs a GRPO update on SmolLM2 through runTrainerProcess, the workers' own
// spawn path; it is SIGKILLed during the log-prob precompute (a phase that never checks for cancellation) and,
// in a second attempt, in the middle of an optimizer step after the first save. Each time the trainer must be
// gone within a few seconds, and a last trainer on the same job directory takes the lock at once and completes
// from the save.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../config/env';
import { runningNotZombie } from '../../platform/process/processes';
import { runTrainerProcess } from '../../activities/training/trainerProcess';
import type { TrainerEvent } from '../../domain/training/trainerProtocol';
import { smollm2Path, TRAINER_DATA } from './helpers';

let dir = '';
let specFile = '';
const strays: number[] = [];

beforeAll(async () => {
  const model = await smollm2Path();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-trainer-orphan-'));
  const out = path.join(dir, 'job');
  specFile = path.join(dir, 'spec.json');
  // 4 optimizer steps (2 ppo epochs x 2 mini-batches), a save after each
  const spec = {
    base_model: model,
    rollouts: path.join(TRAINER_DATA, 'tiny_rollouts.jsonl'),
    output_dir: out,
    lr: 5e-4,
    ppo_epochs: 2,
    mini_batch_size: 2,
    max_length: 160,
    seed: 3,
    save_every: 1,
    advantage: { mode: 'aac' },
    lora: { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj'] },
  };
  fs.writeFileSync(specFile, JSON.stringify(spec));
}, 600_000);

afterAll(() => {
  for (const pid of strays) if (runningNotZombie(pid)) process.kill(pid, 'SIGKILL');
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function goneWithin(pid: number, ms: number): Promise<number | null> {
  const t = Date.now();
  while (Date.now() - t < ms) {
    if (!runningNotZombie(pid)) return Date.now() - t;
    await new Promise((r) => setTimeout(r, 50));
  }
  return null;
}

/** Starts the disposable parent; SIGKILLs it when `killWhen` first holds; returns the trainer's pid then. */
async function attemptKilledWhen(killWhen: (e: TrainerEvent) => boolean): Promise<{ trainerPid: number; events: TrainerEvent[] }> {
  const parent = spawn(process.execPath, ['--import', 'tsx', path.join(PROJECT_ROOT, 'test/training/trainerParent.ts'), 'grpo-update', specFile], {
    cwd: PROJECT_ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const events: TrainerEvent[] = [];
  let trainerPid = 0;
  const exited = new Promise((r) => parent.once('exit', r));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no kill point within 10 min; events: ${JSON.stringify(events).slice(-2000)}`)), 600_000);
    readline.createInterface({ input: parent.stdout }).on('line', (line) => {
      const e = JSON.parse(line) as TrainerEvent;
      events.push(e);
      if (e.type === 'start') {
        trainerPid = e.pid;
        strays.push(e.pid);
      }
      if (trainerPid && killWhen(e)) {
        clearTimeout(timer);
        parent.kill('SIGKILL');
        resolve();
      }
    });
    parent.once('exit', (code) => reject(new Error(`parent exited (${code}) before the kill point; events: ${JSON.stringify(events).slice(-2000)}`)));
  });
  await exited;
  return { trainerPid, events };
}

describe('a trainer whose worker is SIGKILLed', () => {
  it('exits within seconds in any phase, and the next trainer takes the lock and completes from the save', async () => {
    // 1. killed right after `start`: the trainer is computing the reference and old log-probs
    const a = await attemptKilledWhen((e) => e.type === 'start');
    const tookA = await goneWithin(a.trainerPid, 5_000);
    expect(tookA, `trainer ${a.trainerPid} outlived its SIGKILLed parent (log-prob phase)`).not.toBeNull();

    // 2. killed after the first save, during step 2
    const b = await attemptKilledWhen((e) => e.type === 'saved');
    expect(b.events.filter((e) => e.type === 'info' && e.lock_holder_pid !== undefined)).toEqual([]); // attempt 1's trainer left the lock
    const tookB = await goneWithin(b.trainerPid, 5_000);
    expect(tookB, `trainer ${b.trainerPid} outlived its SIGKILLed parent (training phase)`).not.toBeNull();
    console.log(`trainer gone ${tookA} ms (precompute) / ${tookB} ms (step) after its parent's SIGKILL`);

    // 3. a trainer on the same job directory: no lock wait, resumes from the last complete save, finishes
    const started = Date.now();
    const c = await runTrainerProcess('grpo-update', specFile, { env: { PAU_TRAINER_THREADS: '1' } });
    expect(c.exitCode, c.stderrTail).toBe(0);
    expect(c.events.filter((e) => e.type === 'info' && e.lock_holder_pid !== undefined)).toEqual([]);
    const start = c.events.find((e) => e.type === 'start');
    expect(start?.type === 'start' && start.resumed_from_step).toBeGreaterThanOrEqual(1);
    const done = c.events.find((e) => e.type === 'done');
    expect(done?.type === 'done' && done.steps).toBe(4);
    console.log(`resumed from step ${start?.type === 'start' ? start.resumed_from_step : '?'}, done in ${Date.now() - started} ms`);
  }, 1_500_000);
});
