// SFT steps that run on the gpu host (queue `pau-gpu`), where the trainer reads its files: the data set as
// the trainer's JSONL, and the base model's GGUF file.
import fs from 'node:fs';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { ModelConfigError, type ModelSpec, models } from '../../config/models';
import { modelsDir, parseEnv } from '../../config/env';
import type { Db } from '../../db/client';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import { loadSftDataset, loadSftExamples } from '../../db/queries/sftData';
import { sftTrainerJsonl } from './sftData';
import { trainerJobDir } from './runTrainerJob';

/**
 * The GGUF file of a base model named as in the registry: a local entry with its own `modelPath` is that
 * file; `local/<short>` is `<models dir>/<short>.gguf` (the models dir read now, as the trainer reads it).
 * A scripted or remote model cannot be trained (non-retryable); a missing or corrupt file is the trainer's
 * to report (exit 3, TrainerBaseModel, non-retryable).
 */
export function baseModelFile(name: string): string {
  let spec: ModelSpec | undefined;
  try {
    spec = models().get(name);
  } catch (err) {
    if (!(err instanceof ModelConfigError)) throw err;
    if (!/^local\/[A-Za-z0-9._-]+$/.test(name)) throw ApplicationFailure.nonRetryable(`base model: ${err.message}`, FAILURE_TYPES.baseModelUnusable);
  }
  if (spec?.provider === 'local' && spec.modelPath) return path.resolve(spec.modelPath);
  const local = /^local\/([A-Za-z0-9._-]+)$/.exec(name);
  if (local && (!spec || spec.provider === 'local')) return path.join(modelsDir(parseEnv()), `${spec?.model ?? local[1]}.gguf`);
  throw ApplicationFailure.nonRetryable(
    `base model ${name} (provider ${spec?.provider}) has no local weights to train: name a local model (local/<name>)`,
    FAILURE_TYPES.baseModelUnusable,
  );
}

export function writeIfChanged(file: string, text: string): void {
  if (fs.existsSync(file) && fs.readFileSync(file, 'utf8') === text) return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, file);
}

export function createSftGpuActivities(db: () => Db) {
  return {
    /**
     * Writes the data set as the trainer's JSONL beside the job's directory (same content on a retry, so the
     * trainer's spec fingerprint, which includes the data's sha256, still matches and it resumes) and
     * resolves the base model's file.
     */
    async prepareSftData(input: {
      jobId: string;
      data: string;
      base: string;
    }): Promise<{ dataFile: string; baseFile: string; examples: number; lengthCutMessages: number; notAsServed: number }> {
      const baseFile = baseModelFile(input.base);
      const d = db();
      if (!(await loadSftDataset(d, input.data))) {
        throw ApplicationFailure.nonRetryable(`SFT data set ${JSON.stringify(input.data)} does not exist`, FAILURE_TYPES.sftDatasetNotFound);
      }
      const examples = await loadSftExamples(d, input.data);
      if (examples.length === 0) throw ApplicationFailure.nonRetryable(`SFT data set ${input.data} has no examples`, FAILURE_TYPES.sftDatasetEmpty);
      const dataFile = `${trainerJobDir(input.jobId)}.data.jsonl`;
      const data = await sftTrainerJsonl(d, examples);
      if (data.lines === 0) {
        throw ApplicationFailure.nonRetryable(
          `SFT data set ${input.data}: none of its ${examples.length} examples has its model calls in the ledger as served (llm_calls)`,
          FAILURE_TYPES.sftDatasetEmpty,
        );
      }
      writeIfChanged(dataFile, data.text);
      return { dataFile, baseFile, examples: data.lines, lengthCutMessages: data.lengthCutMessages, notAsServed: data.notAsServed };
    },
  };
}
