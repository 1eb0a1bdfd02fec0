// The trainer's own tests (trainer/tests, pytest) as part of `npm test`: GRPO math on fixed tensors, spec
// validation, chat masks, and tiny SmolLM2 jobs on CPU (SFT save/resume/cancel, GRPO update, GGUF LoRA
// served by llama.cpp, TensorBoard event files), and one job as 2 processes (torchrun + DDP over gloo: one SFT
// and one GRPO step equal the single-process ones; the kill/resume sequence on 2 processes). pytest's summary
// line is printed; a failure shows pytest's output tail. In `npm test` pytest was started in the background by
// the global setup (test/setup/trainerPytest.ts) and this waits for its result; alone, it runs pytest here.
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { BACKGROUND_RESULT_ENV, backgroundResult, runTrainerPytest } from '../setup/trainerPytest';

const TIMEOUT_MS = 3_600_000;

it(
  'pytest trainer/tests passes',
  async () => {
    const resultFile = process.env[BACKGROUND_RESULT_ENV];
    let r: Awaited<ReturnType<typeof backgroundResult>>;
    if (resultFile) {
      r = await backgroundResult(resultFile, TIMEOUT_MS - 60_000);
    } else {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-pytest-'));
      r = await runTrainerPytest(path.join(dir, 'pytest.log')).done;
      fs.rmSync(dir, { recursive: true, force: true });
    }
    console.log(`trainer pytest${resultFile ? ' (in the background since the run began)' : ''}: ${r.summary} (${r.seconds}s)`);
    if (r.status !== 0) console.log(`${r.error ?? ''}\n${r.tail}`);
    expect(r.error).toBeUndefined();
    expect(r.status).toBe(0);
    expect(r.summary).toMatch(/\d+ passed/);
    expect(r.summary).not.toMatch(/failed|error/);
  },
  TIMEOUT_MS,
);
