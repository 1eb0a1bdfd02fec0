// A dataset of fixture methods written straight to Postgres (no build): the dataset row, the method rows
// and their split memberships, each inserted once (a second call changes nothing).
import type { Db } from '../../db/client';
import { datasetMethods, datasets, methods } from '../../db/schema/datasets';

export type FixtureMethod = typeof methods.$inferInsert & { split?: 'train' | 'validation' | 'test' };

export async function insertFixtureDataset(db: Db, name: string, rows: readonly FixtureMethod[]): Promise<void> {
  await db
    .insert(datasets)
    .values({ name, contentHash: `fixture:${name}`, config: { fixture: true }, status: 'ready' })
    .onConflictDoNothing();
  for (const [i, { split, ...m }] of rows.entries()) {
    await db.insert(methods).values(m).onConflictDoNothing();
    await db
      .insert(datasetMethods)
      .values({ datasetName: name, methodId: m.id, split: split ?? 'test', position: i })
      .onConflictDoNothing();
  }
}
