// Postgres side of datasets: idempotent writes during a build, and the read API the rest of the pipeline
// uses (episodes, judge, training): getDataset, listDatasets, getDatasetMethods.
import { and, asc, eq, getTableColumns, inArray, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { parseJsonb } from '../../db/jsonb';
import { datasetMethods, datasets, type MethodRow, methods } from '../../db/schema/datasets';
import { type AnyDocument, jsonObjectSchema } from '../../domain/common/jsonDocument';
import { type StoredOutcome, storedOutcomesSchema } from '../../domain/dataset/outcome';
import { type BuildSummary, buildSummarySchema } from '../../domain/dataset/summary';
import type { Normalised } from '../../domain/dataset/method';
import { METHOD_CHECK_COLUMNS, METHOD_SOURCE_COLUMNS, pickColumns } from '../../domain/dataset/methodColumns';
import type { Split } from '../../domain/dataset/split';

export type DatasetRow = typeof datasets.$inferSelect;

const CHUNK = 200;
const COLUMNS = getTableColumns(methods);
function chunks<T>(xs: T[], n = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
}

/**
 * Upserts normalised methods keyed by id. A method whose check key is unchanged and that the sandbox
 * already judged keeps that verdict (a rebuild does not rerun it); everything else is reset to its static
 * verdict. Returns the ids that still need the sandbox (verdict 'pending').
 */
export async function upsertMethods(db: Db, items: Normalised[]): Promise<string[]> {
  const pending: string[] = [];
  for (const part of chunks(items)) {
    const existing = await db
      .select({ id: methods.id, checkKey: methods.checkKey, checkedAt: methods.checkedAt })
      .from(methods)
      .where(
        inArray(
          methods.id,
          part.map((p) => p.method.id),
        ),
      );
    const prior = new Map(existing.map((e) => [e.id, e]));
    const fresh = [];
    for (const { method: m, checkKey } of part) {
      const p = prior.get(m.id);
      const keep = m.verdict === 'pending' && p?.checkedAt != null && p.checkKey === checkKey;
      if (m.verdict === 'pending' && !keep) pending.push(m.id);
      fresh.push({ m, checkKey, keep });
    }
    const rows = fresh.map(({ m, checkKey, keep }) => ({
      keep,
      row: {
        id: m.id,
        ...pickColumns(m, METHOD_SOURCE_COLUMNS),
        meta: m.meta,
        checkKey,
        probeInputs: m.probeInputs,
        heldoutInputs: m.heldoutInputs,
        verdict: m.verdict,
        rejectReasons: m.rejectReasons,
        probeOutputs: null,
        heldoutOutputs: null,
        heldoutGenerated: null,
        heldoutGeneratedOutputs: null,
        codeMatchExclusion: null,
        behaviourKey: null,
        checkedAt: null,
        updatedAt: new Date(),
      },
    }));
    const base = [...METHOD_SOURCE_COLUMNS, 'checkKey', 'updatedAt'] as const;
    const verdictCols = [...METHOD_CHECK_COLUMNS, 'checkedAt'] as const;
    for (const keep of [true, false]) {
      const values = rows.filter((r) => r.keep === keep).map((r) => r.row);
      if (values.length === 0) continue;
      // A kept row keeps its sandbox verdict and outputs; its meta gains the new static facts.
      const set = keep
        ? { ...excludedColumns(base), meta: sql`coalesce(${methods.meta}, '{}'::jsonb) || excluded.meta` }
        : { ...excludedColumns([...base, ...verdictCols]), meta: sql.raw('excluded.meta') };
      await db.insert(methods).values(values).onConflictDoUpdate({ target: methods.id, set });
    }
  }
  return pending;
}

/** A method row with its stored outcomes and meta parsed (the read boundary of the methods table). */
function parsedMethodRow<R extends Pick<MethodRow, 'id' | 'probeOutputs' | 'heldoutOutputs' | 'heldoutGeneratedOutputs' | 'meta'>>(r: R): R {
  const where = (column: string) => ({ table: 'methods', column, row: r.id });
  const outcomes = storedOutcomesSchema.nullable();
  return {
    ...r,
    probeOutputs: parseJsonb(outcomes, r.probeOutputs, where('probe_outputs')),
    heldoutOutputs: parseJsonb(outcomes, r.heldoutOutputs, where('heldout_outputs')),
    heldoutGeneratedOutputs: parseJsonb(outcomes, r.heldoutGeneratedOutputs, where('heldout_generated_outputs')),
    meta: parseJsonb(jsonObjectSchema.nullable(), r.meta, where('meta')),
  };
}

/** An upsert's `set` that takes these `methods` columns from the row it tried to insert (`excluded.<column>`). */
export function excludedColumns(keys: readonly (keyof typeof COLUMNS)[]): Record<string, SQL> {
  return Object.fromEntries(keys.map((k) => [k, sql.raw(`excluded.${COLUMNS[k].name}`)]));
}

/** A select of these `methods` columns, in their order (`db.select(methodColumnSelection(METHOD_CHECK_COLUMNS))`). */
export function methodColumnSelection<K extends keyof typeof COLUMNS>(keys: readonly K[]): Pick<typeof COLUMNS, K> {
  return pickColumns(COLUMNS, keys);
}

export async function methodsByIds(db: Db, ids: string[]): Promise<MethodRow[]> {
  const out: MethodRow[] = [];
  for (const part of chunks(ids)) out.push(...(await db.select().from(methods).where(inArray(methods.id, part))).map(parsedMethodRow));
  const order = new Map(ids.map((id, i) => [id, i]));
  return out.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
}

export interface CheckRecord {
  id: string;
  accepted: boolean;
  reasons: string[];
  detail: string;
  probeInputs: string[];
  heldoutInputs: string[];
  probeOutputs: StoredOutcome[];
  heldoutOutputs: StoredOutcome[];
  /** Accepted methods: generated held-out inputs and outcomes, code-match exclusion, behaviour key. */
  heldoutGenerated?: string[] | null;
  heldoutGeneratedOutputs?: StoredOutcome[] | null;
  codeMatchExclusion?: string | null;
  behaviourKey?: string | null;
  /** Extra facts for the method's meta (e.g. the fingerprint's input types). */
  meta?: Record<string, unknown>;
}

/** Records the sandbox verdict (an upsert of the same row: a retried batch writes the same values). */
export async function recordCheck(db: Db, r: CheckRecord): Promise<void> {
  await db
    .update(methods)
    .set({
      verdict: r.accepted ? 'accepted' : 'rejected',
      rejectReasons: r.reasons,
      probeInputs: r.probeInputs,
      heldoutInputs: r.heldoutInputs,
      probeOutputs: r.probeOutputs,
      heldoutOutputs: r.heldoutOutputs,
      heldoutGenerated: r.heldoutGenerated ?? null,
      heldoutGeneratedOutputs: r.heldoutGeneratedOutputs ?? null,
      codeMatchExclusion: r.codeMatchExclusion ?? null,
      behaviourKey: r.behaviourKey ?? null,
      checkedAt: new Date(),
      updatedAt: new Date(),
      meta: sql`coalesce(${methods.meta}, '{}'::jsonb) || ${JSON.stringify({ ...(r.meta ?? {}), ...(r.detail ? { checkDetail: r.detail } : {}) })}::jsonb`,
    })
    .where(eq(methods.id, r.id));
}

export async function startDatasetRow(
  db: Db,
  name: string,
  workflowId: string,
  config: AnyDocument,
  candidateIds: string[],
  summary: BuildSummary,
): Promise<void> {
  const values = { contentHash: '', config, summary, status: 'building' as const, workflowId, candidateIds, updatedAt: new Date() };
  await db
    .insert(datasets)
    .values({ name, ...values })
    .onConflictDoUpdate({ target: datasets.name, set: values });
}

/** Replaces the dataset's members and marks it ready, in one transaction. */
export async function writeDatasetMembers(
  db: Db,
  name: string,
  members: { id: string; split: Split; position: number }[],
  contentHash: string,
  summary: BuildSummary,
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.delete(datasetMethods).where(eq(datasetMethods.datasetName, name));
    for (const part of chunks(members, 500)) {
      await tx.insert(datasetMethods).values(part.map((m) => ({ datasetName: name, methodId: m.id, split: m.split, position: m.position })));
    }
    await tx.update(datasets).set({ contentHash, summary, status: 'ready', updatedAt: new Date() }).where(eq(datasets.name, name));
  });
}

export async function markDatasetFailed(db: Db, name: string, error: string): Promise<void> {
  await db
    .update(datasets)
    .set({ status: 'failed', updatedAt: new Date(), summary: sql`coalesce(${datasets.summary}, '{}'::jsonb) || ${JSON.stringify({ error })}::jsonb` })
    .where(eq(datasets.name, name));
}

// ------------------------------------------------------------------ read API

export async function getDataset(db: Db, name: string): Promise<DatasetRow | undefined> {
  const [row] = await db.select().from(datasets).where(eq(datasets.name, name));
  return row && { ...row, summary: parseJsonb(buildSummarySchema.nullable(), row.summary, { table: 'datasets', column: 'summary', row: name }) };
}

export async function listDatasets(db: Db): Promise<DatasetRow[]> {
  const rows = await db.select().from(datasets).orderBy(asc(datasets.name));
  return rows.map((r) => ({ ...r, summary: parseJsonb(buildSummarySchema.nullable(), r.summary, { table: 'datasets', column: 'summary', row: r.name }) }));
}

export interface DatasetMethod extends MethodRow {
  split: Split;
  position: number;
}

/** The methods of a dataset (optionally one split), in split then position order. */
export async function getDatasetMethods(db: Db, name: string, opts: { split?: Split; limit?: number; offset?: number } = {}): Promise<DatasetMethod[]> {
  const where = opts.split ? and(eq(datasetMethods.datasetName, name), eq(datasetMethods.split, opts.split)) : eq(datasetMethods.datasetName, name);
  let q = db
    .select({ m: methods, split: datasetMethods.split, position: datasetMethods.position })
    .from(datasetMethods)
    .innerJoin(methods, eq(methods.id, datasetMethods.methodId))
    .where(where)
    .orderBy(asc(datasetMethods.split), asc(datasetMethods.position))
    .$dynamic();
  if (opts.limit !== undefined) q = q.limit(opts.limit);
  if (opts.offset !== undefined) q = q.offset(opts.offset);
  return (await q).map((r) => ({ ...parsedMethodRow(r.m), split: r.split, position: r.position }));
}
