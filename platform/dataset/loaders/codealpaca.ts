// CodeAlpaca's file (the 20k one when present, else the 2k one), read from the data dir, the cache or the
// network (its records: records/codealpaca.ts).
import fs from 'node:fs';
import { isLocallyAvailable, locateSourceFile, type LocateOptions } from '../fetch';
import { SOURCE_FILES } from '../../../domain/dataset/sources';
import type { LoadResult } from '../../../domain/dataset/types';
import { codeAlpacaFromText } from '../../../domain/dataset/records/codealpaca';

export type CodeAlpacaVariant = 'auto' | '20k' | '2k';

/** `auto`: the 20k file if a copy is here or cached, else the 2k file (downloaded only if neither is here). */
export async function loadCodeAlpaca(opts: LocateOptions, variant: CodeAlpacaVariant = 'auto'): Promise<LoadResult> {
  let spec = variant === '2k' ? SOURCE_FILES.codealpaca2k : SOURCE_FILES.codealpaca20k;
  if (variant === 'auto' && !isLocallyAvailable(SOURCE_FILES.codealpaca20k, opts) && isLocallyAvailable(SOURCE_FILES.codealpaca2k, opts))
    spec = SOURCE_FILES.codealpaca2k;
  let f: string;
  try {
    f = await locateSourceFile(spec, opts);
  } catch (err) {
    if (variant !== 'auto' || spec === SOURCE_FILES.codealpaca2k) throw err;
    spec = SOURCE_FILES.codealpaca2k;
    f = await locateSourceFile(spec, opts);
  }
  const which = spec === SOURCE_FILES.codealpaca2k ? '2k' : '20k';
  return codeAlpacaFromText(fs.readFileSync(f, 'utf8'), [{ path: spec.path, sha256: spec.sha256 }], which);
}
