// Before a training run starts: a base given as a Hugging Face directory (a local entry whose modelPath is a
// directory: safetensors, config, tokenizer) is checked by the trainer itself (`python -m pau_trainer.models`:
// a config whose architecture transformers loads, weights, a tokenizer), and must be served by vLLM, since
// llama.cpp reads GGUF files only. Said before anything is started, naming the path (docs/training.md).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { models } from '../../config/models';
import { ensureTrainerPython, TRAINER_DIR } from '../../platform/process/trainerPython';
import { UsageError } from '../lib/args';

const verdictSchema = z.union([
  z.object({ ok: z.literal(true), architecture: z.string() }),
  z.object({ ok: z.literal(false), code: z.string(), message: z.string() }),
]);

/** The base's own directory when `base` is a local entry whose modelPath is one, else null (a GGUF or another provider). */
export function directoryBaseOf(base: string): string | null {
  const spec = models().has(base) ? models().get(base) : undefined;
  if (spec?.provider !== 'local' || !spec.modelPath) return null;
  const dir = path.resolve(spec.modelPath);
  return fs.existsSync(dir) && fs.statSync(dir).isDirectory() ? dir : null;
}

/**
 * Refuses (UsageError, exit 2) a directory base the trainer cannot load, or one nothing can serve when the run
 * serves it (`serves`: rollouts, evaluations); returns the line to print for one that will do, null for any
 * other base.
 */
export async function checkDirectoryBase(base: string, serves: boolean): Promise<string | null> {
  const dir = directoryBaseOf(base);
  if (!dir) return null;
  const py = await ensureTrainerPython((l) => console.error(l));
  const r = spawnSync(py, ['-m', 'pau_trainer.models', dir], { cwd: TRAINER_DIR, encoding: 'utf8' });
  const last = (r.stdout ?? '').trim().split('\n').at(-1) ?? '';
  let verdict: z.infer<typeof verdictSchema>;
  try {
    verdict = verdictSchema.parse(JSON.parse(last));
  } catch {
    throw new Error(`base ${base}: the trainer's check of ${dir} answered nothing readable (exit ${r.status}): ${(r.stderr ?? '').trim().slice(-1000)}`);
  }
  if (!verdict.ok) throw new UsageError(`--base ${base}: ${verdict.message}`);
  if (serves && !models().vllmServerFor(base)) {
    throw new UsageError(
      `--base ${base}: ${dir} is a Hugging Face directory, which llama.cpp cannot serve, so no rollout or evaluation could run: ` +
        `serve it with a vllm entry whose model is this directory and whose vllm.loraBases lists ${base} (docs/models.md)`,
    );
  }
  return `base ${base}: the Hugging Face directory ${dir} (${verdict.architecture}), trained as it is`;
}
