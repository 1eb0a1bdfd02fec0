// A built dataset as a file (datasets/<name>/ in the repository, `pau dataset export`): one JSON line per
// method in the schema below, plus a manifest (config, summary, content hash, the lines' sha256). Every
// field a benchmark run, the judge, code match and training read is in the record; docs/datasets.md
// ("The dataset as a file") documents them. Pure: the files themselves are read and written by
// platform/dataset/file.ts. The schema is versioned (`DATASET_FILE_SCHEMA`); a reader refuses any other.
import { z } from 'zod';
import { canonicalJson, sha256Hex } from '../common/hash';
import { BuildConfig } from './config';
import { datasetContentHash } from './contentHash';
import { METHOD_SOURCE_COLUMNS, pickColumns } from './methodColumns';
import type { StoredOutcome } from './outcome';
import { SOURCE_LICENSES, SOURCE_NAMES } from './sources';
import type { BuildSummary } from './summary';

export const DATASET_FILE_SCHEMA = 'pau-dataset-file/1';
export const FILE_SPLITS = ['test', 'validation', 'train'] as const;

/** A call's outcome with every key present (null where it does not apply), so each line has the same columns. */
export const fileOutcomeSchema = z.strictObject({
  ok: z.boolean(),
  repr: z.string().nullable(),
  excType: z.string().nullable(),
  message: z.string().nullable(),
});
export type FileOutcome = z.infer<typeof fileOutcomeSchema>;

export const referenceInFileSchema = z.strictObject({
  text: z.string().min(1),
  model: z.string().min(1),
  promptVersion: z.string().min(1),
  coderModel: z.string().min(1),
  codeMatch: z.number().min(0).max(1).nullable(),
  threshold: z.number().min(0).max(1),
  createdAt: z.iso.datetime({ offset: true }),
});

const jsonObjectText = z.string().refine((s) => {
  try {
    const v: unknown = JSON.parse(s);
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}, 'expected the JSON text of an object');

/** One line of the file: one accepted method of the dataset, with its split and place in it. */
export const datasetFileRecordSchema = z
  .strictObject({
    id: z.string().min(1),
    split: z.enum(FILE_SPLITS),
    /** Order inside its split (episodes take a split's methods in this order). */
    position: z.number().int().min(0),
    source: z.enum(SOURCE_NAMES),
    sourceId: z.string().min(1),
    /** The source's licence (docs/datasets.md, "Sources and licenses"). */
    license: z.string().min(1),
    entryPoint: z.string().min(1),
    /** The `def` line the agent sees: name and parameters, no docstring, no body. */
    signature: z.string().startsWith('def '),
    code: z.string().min(1),
    codeHash: z.string().min(1),
    nearHash: z.string().min(1),
    goldKind: z.enum(['docstring', 'task-text', 'instruction', 'code-only']),
    goldDescription: z.string().nullable(),
    /** For a method without a gold description: an accepted reference description and its provenance. */
    referenceDescription: referenceInFileSchema.nullable(),
    /** Python-literal argument lists shown to the agent (or used for in-context examples), and their outcomes. */
    probeInputs: z.array(z.string()),
    probeOutputs: z.array(fileOutcomeSchema),
    /** The source's own held-out argument lists (code match only, never shown) and their outcomes. */
    heldoutInputs: z.array(z.string()),
    heldoutOutputs: z.array(fileOutcomeSchema),
    /** Generated held-out argument lists the build chose, and their outcomes; null: none were generated. */
    heldoutGenerated: z.array(z.string()).nullable(),
    heldoutGeneratedOutputs: z.array(fileOutcomeSchema).nullable(),
    /** Why the method is left out of code match; null: it counts. */
    codeMatchExclusion: z.string().nullable(),
    /** Behaviour fingerprint (equal keys: same behaviour, kept in one split); null: not fingerprinted. */
    behaviourKey: z.string().nullable(),
    /** Source-specific facts (task id, official split, imports, ...) as the JSON text of an object. */
    meta: jsonObjectText,
  })
  .superRefine((r, ctx) => {
    const pairs = [
      ['probeOutputs', r.probeInputs.length, r.probeOutputs.length],
      ['heldoutOutputs', r.heldoutInputs.length, r.heldoutOutputs.length],
      ['heldoutGeneratedOutputs', r.heldoutGenerated?.length ?? -1, r.heldoutGeneratedOutputs?.length ?? -1],
    ] as const;
    for (const [field, inputs, outputs] of pairs)
      if (inputs !== outputs) ctx.addIssue({ code: 'custom', path: [field], message: `${outputs} outcomes for ${inputs} inputs` });
    if (r.id !== `${r.source}/${r.sourceId}`) ctx.addIssue({ code: 'custom', path: ['id'], message: `expected ${r.source}/${r.sourceId}` });
  });
export type DatasetFileRecord = z.infer<typeof datasetFileRecordSchema>;

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 hex digits');

/** The manifest beside the lines: what the dataset is, how it was built, and the hashes a reader checks. */
export const datasetManifestSchema = z.strictObject({
  schema: z.literal(DATASET_FILE_SCHEMA),
  name: BuildConfig.shape.name,
  /** The dataset's content hash (domain/dataset/contentHash.ts): recomputed from the lines on load. */
  contentHash: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'expected sha256:<64 hex digits>'),
  /** The data file's name, beside the manifest. */
  file: z.string().min(1),
  /** sha256 of the uncompressed JSON Lines (every byte of every line, newlines included). */
  linesSha256: hex64,
  records: z.number().int().min(0),
  /** Set when the file holds one split only (`dataset export --split`): `contentHash` is then the whole dataset's. */
  onlySplit: z.enum(FILE_SPLITS).nullable(),
  splits: z.strictObject({ test: z.number().int().min(0), validation: z.number().int().min(0), train: z.number().int().min(0) }),
  /** When the build that made it finished (the dataset row's last update). */
  builtAt: z.iso.datetime({ offset: true }),
  /** The build config (without the builder's local source directory). */
  config: z.record(z.string(), z.unknown()),
  /** The build's summary: sources with their files' checksums, rejections by reason, splits. */
  summary: z.looseObject({
    name: z.string(),
    sources: z.record(z.string(), z.looseObject({ files: z.array(z.strictObject({ path: z.string(), sha256: z.string() })) })),
    splits: z.looseObject({}),
  }),
});
export type DatasetManifest = z.infer<typeof datasetManifestSchema>;

/** Meta keys one build's machine decides (which calls a time limit stopped): they stay in the database. */
export const BUILD_DIAGNOSTIC_META = ['checkDetail', 'limitedCalls'] as const;

export function toFileOutcome(o: StoredOutcome): FileOutcome {
  return { ok: o.ok, repr: o.repr ?? null, excType: o.excType ?? null, message: o.message ?? null };
}

export function fromFileOutcome(o: FileOutcome): StoredOutcome {
  return o.ok
    ? { ok: true, ...(o.repr !== null ? { repr: o.repr } : {}) }
    : { ok: false, ...(o.excType !== null ? { excType: o.excType } : {}), ...(o.message !== null ? { message: o.message } : {}) };
}

/** A dataset member as the store reads it (platform/dataset/store.ts DatasetMethod), the fields a record needs. */
export interface MemberRow {
  id: string;
  source: string;
  sourceId: string;
  entryPoint: string | null;
  signature: string | null;
  code: string;
  codeHash: string | null;
  nearHash: string | null;
  goldKind: string | null;
  goldDescription: string | null;
  probeInputs: string[];
  heldoutInputs: string[];
  probeOutputs: StoredOutcome[] | null;
  heldoutOutputs: StoredOutcome[] | null;
  heldoutGenerated: string[] | null;
  heldoutGeneratedOutputs: StoredOutcome[] | null;
  codeMatchExclusion: string | null;
  behaviourKey: string | null;
  meta: Record<string, unknown> | null;
  split: string;
  position: number;
}

export type ReferenceInFile = z.infer<typeof referenceInFileSchema>;

/** The record of one member; throws (zod) when the row is not a finished, accepted method. */
export function recordFromRow(m: MemberRow, reference: ReferenceInFile | null): DatasetFileRecord {
  const meta = Object.fromEntries(Object.entries(m.meta ?? {}).filter(([k]) => !(BUILD_DIAGNOSTIC_META as readonly string[]).includes(k)));
  return datasetFileRecordSchema.parse({
    id: m.id,
    split: m.split,
    position: m.position,
    ...pickColumns(m, METHOD_SOURCE_COLUMNS),
    license: SOURCE_LICENSES[m.source as keyof typeof SOURCE_LICENSES] ?? '',
    referenceDescription: reference,
    probeInputs: m.probeInputs,
    probeOutputs: m.probeOutputs?.map(toFileOutcome) ?? null,
    heldoutInputs: m.heldoutInputs,
    heldoutOutputs: m.heldoutOutputs?.map(toFileOutcome) ?? null,
    heldoutGenerated: m.heldoutGenerated,
    heldoutGeneratedOutputs: m.heldoutGeneratedOutputs?.map(toFileOutcome) ?? null,
    codeMatchExclusion: m.codeMatchExclusion,
    behaviourKey: m.behaviourKey,
    meta: canonicalJson(meta),
  });
}

/** The file's line order: split (test, validation, train), then position. */
export function sortRecords(rs: DatasetFileRecord[]): DatasetFileRecord[] {
  const rank = (s: string) => FILE_SPLITS.indexOf(s as (typeof FILE_SPLITS)[number]);
  return [...rs].sort((a, b) => rank(a.split) - rank(b.split) || a.position - b.position);
}

/** The JSON Lines text of the records (key order as in the schema, so equal records give equal bytes). */
export function recordsText(rs: DatasetFileRecord[]): string {
  return sortRecords(rs)
    .map((r) => `${JSON.stringify(datasetFileRecordSchema.parse(r))}\n`)
    .join('');
}

/** The config as a file carries it: the builder's local source directory is not part of the dataset. */
export function portableConfig(config: object): Record<string, unknown> {
  const { dataDir: _local, ...rest } = config as Record<string, unknown>;
  return rest;
}

/** The content hash of records built with `config` from the source files `summary` lists. */
export function contentHashOfRecords(
  config: unknown,
  summary: { sources: Record<string, { files: { path: string; sha256: string }[] }> },
  rs: DatasetFileRecord[],
): string {
  const files = Object.values(summary.sources).flatMap((s) => s.files);
  return datasetContentHash(
    BuildConfig.parse(config),
    files,
    rs.map((r) => ({
      id: r.id,
      split: r.split,
      codeHash: r.codeHash,
      signature: r.signature,
      entryPoint: r.entryPoint,
      goldDescription: r.goldDescription,
      probeInputs: r.probeInputs,
      heldoutInputs: r.heldoutInputs,
      heldoutGenerated: r.heldoutGenerated ?? [],
      codeMatchExclusion: r.codeMatchExclusion,
    })),
  );
}

export interface ManifestSource {
  contentHash: string;
  config: object;
  summary: BuildSummary;
  builtAt: Date;
  onlySplit?: (typeof FILE_SPLITS)[number] | null;
}

export function manifestFor(name: string, file: string, rs: DatasetFileRecord[], row: ManifestSource): DatasetManifest {
  const text = recordsText(rs);
  const splits = { test: 0, validation: 0, train: 0 };
  for (const r of rs) splits[r.split]++;
  return datasetManifestSchema.parse({
    schema: DATASET_FILE_SCHEMA,
    name,
    contentHash: row.contentHash,
    file,
    linesSha256: sha256Hex(text),
    records: rs.length,
    onlySplit: row.onlySplit ?? null,
    splits,
    builtAt: row.builtAt.toISOString(),
    config: portableConfig(row.config),
    summary: row.summary,
  });
}

/** A file that cannot be used, with where it failed: the line (1-based) and field, when a line did. */
export class DatasetFileError extends Error {
  override name = 'DatasetFileError';
  constructor(
    readonly file: string,
    readonly problem: string,
    readonly line?: number,
    readonly field?: string,
  ) {
    super(`${file}${line !== undefined ? `, line ${line}` : ''}${field ? `, field ${field}` : ''}: ${problem}`);
  }
}

const fieldOf = (path: readonly PropertyKey[]) => (path.length ? path.map(String).join('.') : '(record)');

/**
 * Checks the lines of a file against its manifest and returns the records: every line parses and fits
 * the schema (else the first line and field that failed), ids are unique, the count, the lines' sha256
 * and the recomputed content hash match the manifest. `complete` is false when the bytes stopped early
 * (a truncated compressed file): after the last whole line the file is refused as truncated.
 */
export function verifyLines(file: string, manifest: DatasetManifest, text: string, complete = true): DatasetFileRecord[] {
  const lines = text.split('\n');
  const tail = lines.pop() ?? '';
  if (!complete || tail !== '')
    throw new DatasetFileError(
      file,
      `truncated: the file ends inside line ${lines.length + 1} (after ${lines.length} whole lines; the manifest says ${manifest.records})`,
    );
  const records: DatasetFileRecord[] = [];
  const seen = new Map<string, number>();
  lines.forEach((line, i) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      throw new DatasetFileError(file, `not JSON (${(err as Error).message})`, i + 1);
    }
    const r = datasetFileRecordSchema.safeParse(value);
    if (!r.success) {
      const issue = r.error.issues[0]!;
      throw new DatasetFileError(file, issue.message, i + 1, fieldOf(issue.path));
    }
    const before = seen.get(r.data.id);
    if (before !== undefined) throw new DatasetFileError(file, `id ${r.data.id} is also on line ${before}`, i + 1, 'id');
    seen.set(r.data.id, i + 1);
    records.push(r.data);
  });
  if (records.length !== manifest.records)
    throw new DatasetFileError(file, `${records.length} records, the manifest says ${manifest.records} (truncated or appended to)`);
  const sha = sha256Hex(text);
  if (sha !== manifest.linesSha256)
    throw new DatasetFileError(file, `the lines' sha256 is ${sha}, the manifest says ${manifest.linesSha256}: the file was changed`);
  if (manifest.onlySplit) return records; // one split alone: its hash is the whole dataset's, not recomputable
  const hash = contentHashOfRecords(manifest.config, manifest.summary, records);
  if (hash !== manifest.contentHash) throw new DatasetFileError(file, `its content hash is ${hash}, the manifest says ${manifest.contentHash}`);
  return records;
}

/** Record fields that say where a method sits in its dataset, not what it is. */
const PLACE_FIELDS = ['split', 'position'] as const;

export interface RecordDiff {
  /** Ids only in `a`, only in `b`, and ids in both with the fields that differ. */
  onlyA: string[];
  onlyB: string[];
  changed: { id: string; fields: string[] }[];
}

/** Compares two sets of records by id, field by field (`method`: what a method is, ignoring split and position). */
export function diffRecords(a: DatasetFileRecord[], b: DatasetFileRecord[], opts: { method?: boolean } = {}): RecordDiff {
  const byId = new Map(b.map((r) => [r.id, r]));
  const inA = new Set(a.map((r) => r.id));
  const changed: RecordDiff['changed'] = [];
  for (const r of a) {
    const other = byId.get(r.id);
    if (!other) continue;
    const fields = (Object.keys(r) as (keyof DatasetFileRecord)[]).filter(
      (k) => !(opts.method && (PLACE_FIELDS as readonly string[]).includes(k)) && canonicalJson(r[k]) !== canonicalJson(other[k]),
    );
    if (fields.length) changed.push({ id: r.id, fields });
  }
  return { onlyA: a.filter((r) => !byId.has(r.id)).map((r) => r.id), onlyB: b.filter((r) => !inA.has(r.id)).map((r) => r.id), changed };
}
