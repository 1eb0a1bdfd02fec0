// Which method the contrast format also judges a description beside (domain/judge/formats/contrast.ts): the one
// before it in its data set split's contrast order. The benchmark's judge and the judge card read it here,
// so a description of a method is scored against the same contrast wherever it is judged.
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/client';
import { datasetMethods, datasets, methods } from '../../db/schema/datasets';
import { referenceDescriptions } from '../../db/schema/descriptions';
import { contrastMethodId, contrastOrder, type ContrastMethod } from '../../domain/judge/formats/contrast';
import { entryPointOf } from '../../domain/dataset/entryPoint';
import { acceptedReferenceDescriptions, goldOrReference, type ReferenceDescription } from '../../platform/dataset/referenceDescriptions';

/** The data set split a run draws its methods from (a benchmark's or a GRPO run's config); other fields ignored. */
export const contrastScopeSchema = z.object({ dataset: z.string(), split: z.string() });
export type ContrastScope = z.infer<typeof contrastScopeSchema>;

/**
 * The split's contrast order (ids only). Without a scope (a run whose config names no data set), the
 * method's first membership by data set name and split.
 */
async function orderOf(db: Db, methodId: string, scope: ContrastScope | null): Promise<string[]> {
  let s = scope;
  if (!s) {
    const [first] = await db
      .select({ dataset: datasetMethods.datasetName, split: datasetMethods.split })
      .from(datasetMethods)
      .where(eq(datasetMethods.methodId, methodId))
      .orderBy(asc(datasetMethods.datasetName), asc(datasetMethods.split))
      .limit(1);
    if (!first) return [];
    s = first;
  }
  // A split's order changes only with its build (the content hash) or an accepted reference: read once per
  // such state, not once per judgment (a benchmark judges every episode beside a contrast).
  const [state] = await db
    .select({
      hash: datasets.contentHash,
      refs: sql<string>`(select count(*) || '/' || coalesce(max(${referenceDescriptions.createdAt})::text, '') from ${referenceDescriptions} where ${referenceDescriptions.status} = 'accepted')`,
    })
    .from(datasets)
    .where(eq(datasets.name, s.dataset));
  const key = state?.hash ? `${s.dataset}\0${s.split}\0${state.hash}\0${state.refs}` : null;
  const known = key ? orders.get(key) : undefined;
  if (known) return known;
  const order = await readOrder(db, s);
  if (key) {
    if (orders.size >= 16) orders.delete(orders.keys().next().value!);
    orders.set(key, order);
  }
  return order;
}

/** Split orders by (data set, split, content hash, accepted references); a few splits at most per worker. */
const orders = new Map<string, string[]>();

async function readOrder(db: Db, s: ContrastScope): Promise<string[]> {
  const rows = await db
    .select({ id: methods.id, source: methods.source, gold: methods.goldDescription })
    .from(datasetMethods)
    .innerJoin(methods, eq(methods.id, datasetMethods.methodId))
    .where(and(eq(datasetMethods.datasetName, s.dataset), eq(datasetMethods.split, s.split as 'train' | 'validation' | 'test')))
    .orderBy(asc(datasetMethods.position));
  const refs = await acceptedReferenceDescriptions(
    db,
    rows.filter((r) => !r.gold?.trim()).map((r) => r.id),
  );
  return splitContrastOrder(
    rows.map((r) => ({ id: r.id, source: r.source, goldDescription: r.gold })),
    refs,
  );
}

/** Every stored method's contrast order, from the methods ordered by id. */
async function storedOrder(db: Db): Promise<string[]> {
  const all = await db.select({ id: methods.id, source: methods.source, goldDescription: methods.goldDescription }).from(methods).orderBy(asc(methods.id));
  const refs = await acceptedReferenceDescriptions(
    db,
    all.filter((r) => !r.goldDescription?.trim()).map((r) => r.id),
  );
  return splitContrastOrder(all, refs);
}

/** The contrast order of a split's methods (in dataset order), a reference being a gold or an accepted one. */
export function splitContrastOrder(
  rows: readonly { id: string; source: string; goldDescription: string | null }[],
  refs: Map<string, ReferenceDescription>,
): string[] {
  return contrastOrder(rows.map((r) => ({ id: r.id, source: r.source, hasReference: goldOrReference(r, refs) !== null }))).map((r) => r.id);
}

/** The contrast method of `methodId` as the judge sees it; null when the split has no other method. */
export async function contrastMethodFor(db: Db, methodId: string, scope: ContrastScope | null): Promise<ContrastMethod | null> {
  const inSplit = contrastMethodId(
    (await orderOf(db, methodId, scope)).map((x) => ({ id: x })),
    methodId,
  );
  // A method in no data set, or alone in its split (an ad-hoc episode, a small fixture): every stored method, by id.
  const id =
    inSplit ??
    contrastMethodId(
      (await storedOrder(db)).map((x) => ({ id: x })),
      methodId,
    );
  return id ? contrastMethodById(db, id) : null;
}

/** A method as the contrast format's second question shows it; null when the id is not stored. */
export async function contrastMethodById(db: Db, id: string): Promise<ContrastMethod | null> {
  const [m] = await db
    .select()
    .from(methods)
    .where(inArray(methods.id, [id]));
  if (!m) return null;
  return {
    methodId: m.id,
    input: { signature: m.signature ?? `def ${entryPointOf(m)}(...)`, code: m.code, goldDescription: m.goldDescription },
  };
}
