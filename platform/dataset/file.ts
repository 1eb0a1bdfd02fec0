// The dataset file on disk: the one writer and the one reader of `<name>.jsonl.gz` (or `.jsonl`) and the
// `<name>.manifest.json` beside it (schema: domain/dataset/fileRecord.ts). The repository ships pau-v1
// this way under datasets/pau-v1/; `pau dataset export` writes any built dataset the same way.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { PROJECT_ROOT } from '../../config/env';
import {
  DatasetFileError,
  type DatasetFileRecord,
  type DatasetManifest,
  datasetManifestSchema,
  type ManifestSource,
  manifestFor,
  recordsText,
  verifyLines,
} from '../../domain/dataset/fileRecord';

/** Where the repository ships a dataset: datasets/<name>/<name>.jsonl.gz. */
export function shippedDatasetFile(name: string): string {
  return path.join(PROJECT_ROOT, 'datasets', name, `${name}.jsonl.gz`);
}

const DATA_EXT = /\.(jsonl\.gz|jsonl|parquet)$/;

/** The manifest of a data file: `x.jsonl.gz` → `x.manifest.json`, beside it. */
export function manifestPathOf(dataFile: string): string {
  if (!DATA_EXT.test(dataFile)) throw new DatasetFileError(dataFile, 'a dataset file is named <name>.jsonl.gz, <name>.jsonl or <name>.parquet');
  return dataFile.replace(DATA_EXT, '.manifest.json');
}

export interface DatasetFile {
  file: string;
  manifest: DatasetManifest;
  records: DatasetFileRecord[];
}

function readManifest(dataFile: string): DatasetManifest {
  const mf = manifestPathOf(dataFile);
  if (!fs.existsSync(mf)) throw new DatasetFileError(dataFile, `no manifest beside it (expected ${mf})`);
  let value: unknown;
  try {
    value = JSON.parse(fs.readFileSync(mf, 'utf8'));
  } catch (err) {
    throw new DatasetFileError(mf, `not JSON (${(err as Error).message})`);
  }
  const r = datasetManifestSchema.safeParse(value);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw new DatasetFileError(mf, issue.message, undefined, issue.path.map(String).join('.') || '(manifest)');
  }
  if (r.data.file !== path.basename(dataFile)) throw new DatasetFileError(mf, `it describes ${r.data.file}, not ${path.basename(dataFile)}`, undefined, 'file');
  return r.data;
}

/** The uncompressed text, and whether the bytes were whole (a cut-off gzip stream still gives its lines). */
function readText(dataFile: string): { text: string; complete: boolean } {
  const bytes = fs.readFileSync(dataFile);
  if (!dataFile.endsWith('.gz')) return { text: bytes.toString('utf8'), complete: true };
  try {
    return { text: zlib.gunzipSync(bytes).toString('utf8'), complete: true };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'Z_BUF_ERROR') throw new DatasetFileError(dataFile, `not a valid gzip file (${(err as Error).message})`);
    // "unexpected end of file": decode what is there, to say after which line it stops.
    const partial = zlib.gunzipSync(bytes, { finishFlush: zlib.constants.Z_SYNC_FLUSH }).toString('utf8');
    return { text: partial, complete: false };
  }
}

/**
 * Reads and verifies a dataset file: its manifest, every line against the record schema, the count, the
 * lines' sha256 and the content hash. Throws DatasetFileError naming the line and field that failed.
 */
export function readDatasetFile(dataFile: string): DatasetFile {
  if (dataFile.endsWith('.parquet')) throw new DatasetFileError(dataFile, 'load reads JSON Lines (.jsonl.gz or .jsonl); parquet is an export format');
  if (!fs.existsSync(dataFile)) throw new DatasetFileError(dataFile, 'no such file');
  const manifest = readManifest(dataFile);
  const { text, complete } = readText(dataFile);
  return { file: dataFile, manifest, records: verifyLines(dataFile, manifest, text, complete) };
}

/** Writes the records (gzip-compressed for `.jsonl.gz`) and their manifest; each file appears whole or not at all. */
export function writeDatasetFile(dataFile: string, name: string, records: DatasetFileRecord[], row: ManifestSource): DatasetManifest {
  const manifestFile = manifestPathOf(dataFile);
  if (dataFile.endsWith('.parquet')) throw new DatasetFileError(dataFile, 'parquet is written from the JSON Lines (scripts/commands/dataset.ts)');
  const text = recordsText(records);
  const manifest = manifestFor(name, path.basename(dataFile), records, row);
  // gzip's header carries no time or name here (node writes mtime 0), so equal records give equal bytes.
  const data = dataFile.endsWith('.gz') ? zlib.gzipSync(text, { level: 9 }) : Buffer.from(text, 'utf8');
  fs.mkdirSync(path.dirname(path.resolve(dataFile)), { recursive: true });
  for (const [file, bytes] of [
    [dataFile, data],
    [manifestFile, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`, 'utf8')],
  ] as const) {
    // A fresh temporary file, 0600 like every export of run data (docs/security.md), renamed over the target.
    const tmp = `${file}.tmp-${process.pid}`;
    fs.rmSync(tmp, { force: true });
    fs.writeFileSync(tmp, bytes, { mode: 0o600 });
    fs.renameSync(tmp, file);
  }
  return manifest;
}
