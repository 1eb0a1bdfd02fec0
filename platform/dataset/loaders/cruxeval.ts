// CRUXEval's file, read from the data dir, the cache or the network (its records: records/cruxeval.ts).
import fs from 'node:fs';
import { locateSourceFile, type LocateOptions } from '../fetch';
import { SOURCE_FILES } from '../../../domain/dataset/sources';
import type { LoadResult } from '../../../domain/dataset/types';
import { cruxEvalFromText } from '../../../domain/dataset/records/cruxeval';

export async function loadCruxEval(opts: LocateOptions): Promise<LoadResult> {
  const f = await locateSourceFile(SOURCE_FILES.cruxeval, opts);
  return cruxEvalFromText(fs.readFileSync(f, 'utf8'), [{ path: SOURCE_FILES.cruxeval.path, sha256: SOURCE_FILES.cruxeval.sha256 }]);
}
