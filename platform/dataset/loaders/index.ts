// One entry point for all sources.
import { env } from '../../../config/env';
import path from 'node:path';
import type { LocateOptions } from '../fetch';
import type { SourceName } from '../../../domain/dataset/sources';
import type { LoadResult } from '../../../domain/dataset/types';
import { loadCodeAlpaca, type CodeAlpacaVariant } from './codealpaca';
import { loadCruxEval } from './cruxeval';
import { loadHumanEval } from './humaneval';
import { loadMbpp } from './mbpp';

export function defaultLocateOptions(): LocateOptions {
  const e = env();
  return { dataDir: e.PAU_DATA_DIR, cacheDir: path.join(e.PAU_STATE_DIR, 'cache', 'datasets') };
}

export async function loadSource(
  source: SourceName,
  opts: LocateOptions = defaultLocateOptions(),
  codeAlpaca: CodeAlpacaVariant = 'auto',
): Promise<LoadResult> {
  switch (source) {
    case 'humaneval':
      return loadHumanEval(opts);
    case 'mbpp':
      return loadMbpp(opts);
    case 'cruxeval':
      return loadCruxEval(opts);
    case 'codealpaca':
      return loadCodeAlpaca(opts, codeAlpaca);
  }
}

export { loadCodeAlpaca, loadCruxEval, loadHumanEval, loadMbpp };
