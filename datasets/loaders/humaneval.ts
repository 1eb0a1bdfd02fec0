// HumanEval (MIT): 164 problems; code = prompt + canonical_solution; inputs from `check(candidate)`;
// gold = the entry point's docstring (filled in after analysis).
import fs from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { z } from 'zod';
import { isLocallyAvailable, locateSourceFile, type LocateOptions } from '../fetch';
import { SOURCE_FILES } from '../sources';
import type { LoadResult } from '../types';
import { parseJsonLines } from './parse';

export const HumanEvalRecord = z.object({
  task_id: z.string().min(1),
  prompt: z.string(),
  entry_point: z.string().min(1),
  canonical_solution: z.string(),
  test: z.string(),
});
export type HumanEvalRecord = z.infer<typeof HumanEvalRecord>;

export async function readHumanEvalText(opts: LocateOptions): Promise<{ text: string; file: { path: string; sha256: string } }> {
  // The plain .jsonl when it is here; else the original .gz (from the data dir, the cache or the network).
  const spec = isLocallyAvailable(SOURCE_FILES.humaneval, opts) ? SOURCE_FILES.humaneval : SOURCE_FILES.humanevalGz;
  const file = await locateSourceFile(spec, opts);
  const bytes = fs.readFileSync(file);
  return { text: (file.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8'), file: { path: spec.path, sha256: spec.sha256 } };
}

export function humanEvalFromText(text: string, file = { path: 'HumanEval.jsonl', sha256: '' }): LoadResult {
  const { records, rejects, raw } = parseJsonLines('humaneval', text, HumanEvalRecord);
  return {
    source: 'humaneval',
    files: [file],
    raw,
    rejects,
    candidates: records.map((r) => ({
      source: 'humaneval' as const,
      sourceId: r.task_id,
      code: r.prompt + r.canonical_solution,
      entryPoint: r.entry_point,
      inputs: { kind: 'humaneval' as const, test: r.test },
      goldKind: 'docstring' as const,
      gold: null,
      meta: {},
    })),
  };
}

export async function loadHumanEval(opts: LocateOptions): Promise<LoadResult> {
  const { text, file } = await readHumanEvalText(opts);
  return humanEvalFromText(text, file);
}
