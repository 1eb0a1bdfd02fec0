// Between a dataset file (platform/dataset/file.ts) and Postgres: the records of a built dataset (what
// `dataset export` writes and a build is compared by), and the import of a verified file (`dataset load`,
// `npm start`'s first run) in one transaction that writes only what differs, so loading the same file
// again changes nothing.
import { asc, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { datasetMethods, datasets, methods } from '../../db/schema/datasets';
import { referenceDescriptions } from '../../db/schema/descriptions';
import { canonicalJson } from '../../domain/common/hash';
import { type DatasetFileRecord, DatasetFileError, fromFileOutcome, recordFromRow, sortRecords } from '../../domain/dataset/fileRecord';
import { METHOD_CHECK_COLUMNS, METHOD_SOURCE_COLUMNS, pickColumns } from '../../domain/dataset/methodColumns';
import type { Split } from '../../domain/dataset/split';
import type { BuildSummary } from '../../domain/dataset/summary';
import { type DatasetFile, readDatasetFile } from './file';
import { acceptedReferenceDescriptions } from './referenceDescriptions';
import { excludedColumns, getDatasetMethods } from './store';

/** The records of a built dataset (optionally one split), in the file's order. */
export async function datasetRecords(db: Db, name: string, opts: { split?: Split } = {}): Promise<DatasetFileRecord[]> {
  const ms = await getDatasetMethods(db, name, opts.split ? { split: opts.split } : {});
  const refs = await acceptedReferenceDescriptions(
    db,
    ms.filter((m) => !m.goldDescription).map((m) => m.id),
  );
  return sortRecords(
    ms.map((m) => {
      const ref = refs.get(m.id);
      return recordFromRow(
        m,
        ref
          ? {
              text: ref.description,
              model: ref.model,
              promptVersion: ref.promptVersion,
              coderModel: ref.coderModel,
              codeMatch: ref.codeMatch,
              threshold: ref.threshold,
              createdAt: ref.createdAt.toISOString(),
            }
          : null,
      );
    }),
  );
}

/** The `methods` columns a record sets. A loaded method is no verdict of this machine's sandbox: no check key,
 * so a later `dataset build` checks it again rather than keeping it. */
function methodColumns(r: DatasetFileRecord) {
  return {
    id: r.id,
    ...pickColumns(r, METHOD_SOURCE_COLUMNS),
    probeInputs: r.probeInputs,
    heldoutInputs: r.heldoutInputs,
    probeOutputs: r.probeOutputs.map(fromFileOutcome),
    heldoutOutputs: r.heldoutOutputs.map(fromFileOutcome),
    heldoutGenerated: r.heldoutGenerated,
    heldoutGeneratedOutputs: r.heldoutGeneratedOutputs?.map(fromFileOutcome) ?? null,
    codeMatchExclusion: r.codeMatchExclusion,
    behaviourKey: r.behaviourKey,
    verdict: 'accepted' as const,
    rejectReasons: [] as string[],
    meta: JSON.parse(r.meta) as Record<string, unknown>,
  };
}
type MethodColumns = ReturnType<typeof methodColumns>;
/** What "the same row" means: every column a record sets (not the timestamps, nor a build's check key). */
const COMPARED: (keyof MethodColumns)[] = [...METHOD_SOURCE_COLUMNS, ...METHOD_CHECK_COLUMNS, 'meta'];

export interface ImportResult {
  name: string;
  contentHash: string;
  /** Method rows written (new or different) and left as they were. */
  methodsWritten: number;
  methodsUnchanged: number;
  referencesWritten: number;
  /** Whether the dataset row and its member list were rewritten. */
  datasetWritten: boolean;
  membersWritten: boolean;
  /** The content hash the dataset had before (null: it was not there). */
  previousHash: string | null;
}

const CHUNK = 200;

/** Imports a verified file (readDatasetFile) in one transaction, writing only rows that differ. */
export async function importDatasetFile(db: Db, f: DatasetFile): Promise<ImportResult> {
  const { manifest, records } = f;
  if (manifest.onlySplit)
    throw new DatasetFileError(f.file, `it holds the ${manifest.onlySplit} split only: a dataset is loaded whole`, undefined, 'onlySplit');
  const name = manifest.name;
  return db.transaction(async (tx) => {
    let methodsWritten = 0;
    let referencesWritten = 0;
    for (let i = 0; i < records.length; i += CHUNK) {
      const part = records.slice(i, i + CHUNK);
      const existing = await tx
        .select()
        .from(methods)
        .where(
          inArray(
            methods.id,
            part.map((r) => r.id),
          ),
        );
      const have = new Map(existing.map((e) => [e.id, e]));
      const write = part
        .map(methodColumns)
        .filter((cols) => {
          const old = have.get(cols.id);
          return !old || COMPARED.some((k) => canonicalJson(old[k]) !== canonicalJson(cols[k]));
        })
        .map((cols) => ({ ...cols, checkKey: null, checkedAt: null, updatedAt: new Date() }));
      if (write.length > 0) {
        const set = excludedColumns((Object.keys(write[0]!) as (keyof (typeof write)[number])[]).filter((k) => k !== 'id'));
        await tx.insert(methods).values(write).onConflictDoUpdate({ target: methods.id, set });
        methodsWritten += write.length;
      }
      const refs = part.filter((r) => r.referenceDescription);
      if (refs.length > 0) {
        const inserted = await tx
          .insert(referenceDescriptions)
          .values(
            refs.map((r) => {
              const d = r.referenceDescription!;
              return {
                methodId: r.id,
                model: d.model,
                promptVersion: d.promptVersion,
                description: d.text,
                coderModel: d.coderModel,
                codeMatch: d.codeMatch,
                threshold: d.threshold,
                status: 'accepted' as const,
                detail: { loadedFrom: manifest.contentHash },
                createdAt: new Date(d.createdAt),
              };
            }),
          )
          .onConflictDoNothing()
          .returning({ id: referenceDescriptions.methodId });
        referencesWritten += inserted.length;
      }
    }
    const [row] = await tx.select().from(datasets).where(eq(datasets.name, name));
    const wanted = {
      contentHash: manifest.contentHash,
      config: manifest.config,
      summary: manifest.summary as unknown as BuildSummary,
      status: 'ready' as const,
      candidateIds: records.map((r) => r.id),
    };
    const sameRow = row !== undefined && (Object.keys(wanted) as (keyof typeof wanted)[]).every((k) => canonicalJson(row[k]) === canonicalJson(wanted[k]));
    if (!sameRow) {
      const values = { ...wanted, workflowId: null, updatedAt: new Date() };
      await tx
        .insert(datasets)
        .values({ name, ...values })
        .onConflictDoUpdate({ target: datasets.name, set: values });
    }
    const members = await tx
      .select({ id: datasetMethods.methodId, split: datasetMethods.split, position: datasetMethods.position })
      .from(datasetMethods)
      .where(eq(datasetMethods.datasetName, name))
      .orderBy(asc(datasetMethods.methodId));
    const key = (xs: { id: string; split: string; position: number }[]) =>
      canonicalJson([...xs].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((m) => [m.id, m.split, m.position]));
    const sameMembers = key(members) === key(records);
    if (!sameMembers) {
      await tx.delete(datasetMethods).where(eq(datasetMethods.datasetName, name));
      for (let i = 0; i < records.length; i += 500)
        await tx
          .insert(datasetMethods)
          .values(records.slice(i, i + 500).map((r) => ({ datasetName: name, methodId: r.id, split: r.split, position: r.position })));
    }
    return {
      name,
      contentHash: manifest.contentHash,
      methodsWritten,
      methodsUnchanged: records.length - methodsWritten,
      referencesWritten,
      datasetWritten: !sameRow,
      membersWritten: !sameMembers,
      previousHash: row?.contentHash || null,
    };
  });
}

/** Reads, verifies and imports a dataset file (`dataset load`, `npm start`): refused whole, or imported whole. */
export async function loadDatasetFile(db: Db, file: string): Promise<ImportResult & { seconds: number; records: number }> {
  const started = Date.now();
  const f = readDatasetFile(file);
  const r = await importDatasetFile(db, f);
  return { ...r, records: f.records.length, seconds: (Date.now() - started) / 1000 };
}

/** One line on a load's outcome. */
export function loadLine(r: ImportResult & { seconds: number; records: number }): string {
  const unchanged = r.methodsWritten === 0 && !r.datasetWritten && !r.membersWritten && r.referencesWritten === 0;
  const what = unchanged
    ? 'already loaded, nothing changed'
    : `${r.methodsWritten} method rows written, ${r.methodsUnchanged} unchanged${r.referencesWritten ? `, ${r.referencesWritten} reference descriptions` : ''}${r.previousHash && r.previousHash !== r.contentHash ? `; replaced ${r.previousHash}` : ''}`;
  return `dataset ${r.name}: loaded ${r.records} methods (${r.contentHash}) in ${r.seconds.toFixed(1)} s: ${what}`;
}
