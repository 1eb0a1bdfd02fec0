// HumanEval's file, read from the data dir, the cache or the network (its records: records/humaneval.ts).
import fs from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { isLocallyAvailable, locateSourceFile, type LocateOptions } from '../fetch';
import { SOURCE_FILES } from '../../../domain/dataset/sources';
import type { LoadResult } from '../../../domain/dataset/types';
import { humanEvalFromText } from '../../../domain/dataset/records/humaneval';

export async function readHumanEvalText(opts: LocateOptions): Promise<{ text: string; file: { path: string; sha256: string } }> {
  // The plain .jsonl when it is here; else the original .gz (from the data dir, the cache or the network).
  const spec = isLocallyAvailable(SOURCE_FILES.humaneval, opts) ? SOURCE_FILES.humaneval : SOURCE_FILES.humanevalGz;
  const file = await locateSourceFile(spec, opts);
  const bytes = fs.readFileSync(file);
  return { text: (file.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8'), file: { path: spec.path, sha256: spec.sha256 } };
}

export async function loadHumanEval(opts: LocateOptions): Promise<LoadResult> {
  const { text, file } = await readHumanEvalText(opts);
  return humanEvalFromText(text, file);
}
