// The trainer's own tests (trainer/tests, pytest) as part of `npm test`: GRPO math on fixed tensors, spec
// validation, chat masks, and tiny SmolLM2 jobs on CPU (SFT save/resume/cancel, GRPO update, GGUF LoRA
// served by llama.cpp, TensorBoard event files), and one job as 2 processes (torchrun + DDP over gloo: one SFT
// and one GRPO step equal the single-process ones; the kill/resume sequence on 2 processes). pytest's summary line is printed; a failure shows pytest's output tail.
import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { ensureTrainerPython, TRAINER_DIR } from '../../activities/training/trainerProcess';
import { smollm2Path } from './helpers';

it('pytest trainer/tests passes', async () => {
  const py = await ensureTrainerPython();
  await smollm2Path(); // fetch the base model outside pytest's timing
  const started = Date.now();
  // PAU_TRAINER_PYTEST_ARGS narrows the run while working (e.g. "tests/test_core_algos.py"); npm test runs all
  const selection = process.env.PAU_TRAINER_PYTEST_ARGS?.trim().split(/\s+/) ?? ['tests'];
  const r = spawnSync(py, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', ...selection], {
    cwd: TRAINER_DIR,
    encoding: 'utf8',
    env: { ...process.env, PAU_TRAINER_THREADS: '1' },
    maxBuffer: 64 * 1024 * 1024,
  });
  const out = `${r.stdout}\n${r.stderr}`;
  const summary =
    out
      .trim()
      .split('\n')
      .filter((l) => /\d+ (passed|failed)/.test(l))
      .pop() ?? '(no summary)';
  console.log(`trainer pytest: ${summary.replace(/=/g, '').trim()} (${Math.round((Date.now() - started) / 1000)}s)`);
  if (r.status !== 0) console.log(out.slice(-6000));
  expect(r.status).toBe(0);
  expect(summary).toMatch(/\d+ passed/);
  expect(summary).not.toMatch(/failed|error/);
}, 3_600_000);
