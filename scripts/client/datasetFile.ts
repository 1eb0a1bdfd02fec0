// How a built dataset compares with the file the repository ships for it (datasets/<name>/): the end of
// `pau dataset build`. Same content hash, or the rows that differ and why, naming the calls a limit stopped
// in this build. The shipped file is never written here: replacing it is an explicit `dataset export`.
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../../db/client';
import { PROJECT_ROOT } from '../../config/env';
import { diffRecords } from '../../domain/dataset/fileRecord';
import { resultConfig } from '../../domain/dataset/contentHash';
import { BuildConfig } from '../../domain/dataset/config';
import { canonicalJson } from '../../domain/common/hash';
import { DatasetFileError } from '../../domain/dataset/fileRecord';
import { readDatasetFile, shippedDatasetFile } from '../../platform/dataset/file';
import { datasetRecords } from '../../platform/dataset/fileStore';
import { getDataset, methodsByIds } from '../../platform/dataset/store';

const SHOWN = 20;

export interface ShippedComparison {
  /** 'none': no shipped file for this name; 'same': equal content hash; 'differs'; 'unreadable': the file was refused. */
  status: 'none' | 'same' | 'differs' | 'unreadable';
  lines: string[];
}

const rel = (f: string) => path.relative(PROJECT_ROOT, f) || f;

export async function compareWithShipped(db: Db, name: string, file = shippedDatasetFile(name)): Promise<ShippedComparison> {
  if (!fs.existsSync(file)) return { status: 'none', lines: [`no shipped file for ${name} (${rel(file)}): nothing to compare with`] };
  let shipped: ReturnType<typeof readDatasetFile>;
  try {
    shipped = readDatasetFile(file);
  } catch (err) {
    if (!(err instanceof DatasetFileError)) throw err;
    return { status: 'unreadable', lines: [`the shipped file was refused: ${err.message}`] };
  }
  const row = await getDataset(db, name);
  if (!row || row.status !== 'ready') return { status: 'differs', lines: [`dataset ${name} is not ready here: nothing to compare`] };
  if (row.contentHash === shipped.manifest.contentHash)
    return { status: 'same', lines: [`same as the shipped file ${rel(file)}: ${row.contentHash} (${shipped.records.length} methods)`] };
  const built = await datasetRecords(db, name);
  const d = diffRecords(built, shipped.records);
  const lines = [
    `DIFFERS from the shipped file ${rel(file)}: built ${row.contentHash}, shipped ${shipped.manifest.contentHash}; the shipped file is left as it is`,
    `  ${d.onlyA.length} methods only in this build, ${d.onlyB.length} only in the shipped file, ${d.changed.length} in both with other fields`,
  ];
  const cfgHere = canonicalJson(resultConfig(BuildConfig.parse(row.config)));
  const cfgThere = canonicalJson(resultConfig(BuildConfig.parse(shipped.manifest.config)));
  if (cfgHere !== cfgThere) lines.push(`  the build configs differ: here ${cfgHere}; shipped ${cfgThere}`);
  const files = (s: { sources: Record<string, { files?: { path: string; sha256: string }[] }> }) =>
    canonicalJson(
      Object.values(s.sources)
        .flatMap((x) => x.files ?? [])
        .sort((a, b) => (a.path < b.path ? -1 : 1)),
    );
  if (row.summary && files(row.summary) !== files(shipped.manifest.summary)) lines.push('  the source files differ (other checksums or files)');
  // Why, from this build's rows: its verdict and the calls a limit stopped here.
  const ids = [...d.onlyB, ...d.onlyA, ...d.changed.map((c) => c.id)];
  const rows = new Map((await methodsByIds(db, ids)).map((m) => [m.id, m]));
  const dups = new Map((row.summary?.duplicates ?? []).map((x) => [x.id, x]));
  const limited = (id: string) => {
    const calls = rows.get(id)?.meta?.limitedCalls;
    return Array.isArray(calls) && calls.length ? `; stopped at a limit here: ${calls.map((c) => `(${String(c)})`).join(', ')}` : '';
  };
  const candidates = new Set(row.candidateIds);
  const why = (id: string): string => {
    const m = rows.get(id);
    if (!m || !candidates.has(id)) return 'not a candidate of this build';
    if (m.verdict === 'rejected') {
      const detail = typeof m.meta?.checkDetail === 'string' ? ` (${m.meta.checkDetail})` : '';
      return `rejected here: ${m.rejectReasons.join(', ')}${detail}${limited(id)}`;
    }
    const dup = dups.get(id);
    if (dup) return `a ${dup.kind} here${limited(id)}`;
    return `accepted here${limited(id)}`;
  };
  const list = (title: string, xs: string[], text: (id: string) => string) => {
    if (xs.length === 0) return;
    lines.push(`  ${title}:`);
    for (const id of xs.slice(0, SHOWN)) lines.push(`    ${id}: ${text(id)}`);
    if (xs.length > SHOWN) lines.push(`    ... and ${xs.length - SHOWN} more`);
  };
  list('only in the shipped file', d.onlyB, why);
  list('only in this build', d.onlyA, (id) => `${why(id)}; the shipped build did not keep it`);
  list(
    'in both, other fields',
    d.changed.map((c) => c.id),
    (id) => `${d.changed.find((c) => c.id === id)!.fields.join(', ')}${limited(id)}`,
  );
  lines.push(
    `  to ship this build instead (after reading the above): npm run pau -- dataset export ${name} --out ${rel(file)}; a call that reaches its time limit on one machine and not on another changes the rows (docs/datasets.md, "The dataset as a file")`,
  );
  return { status: 'differs', lines };
}
