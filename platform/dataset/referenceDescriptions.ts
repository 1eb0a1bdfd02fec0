// Reading reference descriptions (written by `pau dataset describe`, activities/describe): for a method
// without a gold description (CruxEval), the accepted description with its provenance. Training (the
// AAC-GRPO critic) reads gold descriptions through `goldOrReference`.
import { and, desc, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { referenceDescriptions } from '../../db/schema/descriptions';

export type ReferenceDescription = typeof referenceDescriptions.$inferSelect;

/** The accepted reference description of each method (the most recent when several models wrote one). */
export async function acceptedReferenceDescriptions(db: Db, methodIds: string[]): Promise<Map<string, ReferenceDescription>> {
  const out = new Map<string, ReferenceDescription>();
  for (let i = 0; i < methodIds.length; i += 500) {
    const rows = await db
      .select()
      .from(referenceDescriptions)
      .where(and(inArray(referenceDescriptions.methodId, methodIds.slice(i, i + 500)), eq(referenceDescriptions.status, 'accepted')))
      .orderBy(desc(referenceDescriptions.createdAt));
    for (const r of rows) if (!out.has(r.methodId)) out.set(r.methodId, r);
  }
  return out;
}

/** Every attempt for one method (accepted or not), newest first. */
export async function referenceAttempts(db: Db, methodId: string): Promise<ReferenceDescription[]> {
  return db.select().from(referenceDescriptions).where(eq(referenceDescriptions.methodId, methodId)).orderBy(desc(referenceDescriptions.createdAt));
}

/** The text a consumer should treat as the gold description: the source's, else an accepted reference one. */
export function goldOrReference(
  m: { id: string; goldDescription: string | null },
  refs: Map<string, ReferenceDescription>,
): { text: string; kind: 'gold' | 'reference' } | null {
  if (m.goldDescription) return { text: m.goldDescription, kind: 'gold' };
  const r = refs.get(m.id);
  return r ? { text: r.description, kind: 'reference' } : null;
}
