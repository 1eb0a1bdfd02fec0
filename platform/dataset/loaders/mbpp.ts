// MBPP's two files, read from the data dir, the cache or the network (their records: records/mbpp.ts).
import fs from 'node:fs';
import { locateSourceFile, type LocateOptions } from '../fetch';
import { SOURCE_FILES } from '../../../domain/dataset/sources';
import type { LoadResult } from '../../../domain/dataset/types';
import { MbppSanitizedRecord, mbppFromText } from '../../../domain/dataset/records/mbpp';
import { parseJsonArray } from '../../../domain/dataset/records/parse';

export async function loadMbpp(opts: LocateOptions): Promise<LoadResult> {
  const fullFile = await locateSourceFile(SOURCE_FILES.mbpp, opts);
  const sanFile = await locateSourceFile(SOURCE_FILES.mbppSanitized, opts);
  return mbppFromText(fs.readFileSync(fullFile, 'utf8'), fs.readFileSync(sanFile, 'utf8'), [
    { path: SOURCE_FILES.mbpp.path, sha256: SOURCE_FILES.mbpp.sha256 },
    { path: SOURCE_FILES.mbppSanitized.path, sha256: SOURCE_FILES.mbppSanitized.sha256 },
  ]);
}

/** The sanitized file on its own (427 records), for tests and inspection. */
export async function loadMbppSanitized(opts: LocateOptions) {
  const f = await locateSourceFile(SOURCE_FILES.mbppSanitized, opts);
  return parseJsonArray('mbpp', fs.readFileSync(f, 'utf8'), MbppSanitizedRecord);
}
