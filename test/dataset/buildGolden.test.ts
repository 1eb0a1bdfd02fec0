// A small build through the batch path (BATCH messages, the determinism check's run A as the first
// run, generated candidates run as far as the selection reads them) gives exactly the rows and content
// hash of the one-call-per-request path it replaced. The golden values were made by that old path
// (commit b7875ed: prepare, checkMethodsBatch, finalize with this config on an empty database) with the
// same digest as below; the sandbox checks here really run (every verdict is reset first).
import crypto from 'node:crypto';
import { asc, inArray, sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { makeCheckMethodsBatch } from '../../activities/dataset/checkBatch';
import { poolDatasetSandbox } from '../../activities/dataset/sandboxClient';
import { closeSharedSandboxPool } from '../../activities/sandbox/index';
import { methods } from '../../db/schema/datasets';
import { finalizeBuild, prepareBuild } from '../../activities/dataset/build';
import { METHOD_CHECK_COLUMNS } from '../../domain/dataset/methodColumns';
import { getDataset, methodColumnSelection } from '../../platform/dataset/store';
import { useStack } from '../helpers/stack';

const stack = useStack({ dbPool: 4 });
afterAll(async () => {
  await closeSharedSandboxPool();
});

const CONFIG = { name: 'ds-golden', limit: 6, split: { test: 12, validation: 4 } };
const GOLDEN_HASH = 'sha256:47921d9d6592bedb41c9954b04b2aa7461968a0828f3d7506e8e8785ea5df79e';
/** sha256 of the JSON of every column the sandbox check writes, per candidate, ordered by id. */
const GOLDEN_ROWS = '12fcae511092e10c70f851e7ce04f4d90f08b472738783f564dd5ff17e92bbe4';

describe('dataset build through the batch path', () => {
  it('gives the rows and content hash of the old path on a small slice of all four sources', { timeout: 600_000 }, async () => {
    const db = stack.db;
    await db.execute(sql`update methods set checked_at = null`); // every method of the slice is checked again
    const prep = await prepareBuild(db, CONFIG, 'test/golden');
    expect(prep.toCheck.length).toBe(24);
    const check = makeCheckMethodsBatch({ db: () => db, sandbox: () => poolDatasetSandbox() });
    expect(await check({ ids: prep.toCheck })).toMatchObject({ checked: 24 });
    const summary = await finalizeBuild(db, CONFIG.name);
    const ids = (await getDataset(db, CONFIG.name))!.candidateIds as string[];
    const rows = await db
      .select(methodColumnSelection(['id', ...METHOD_CHECK_COLUMNS]))
      .from(methods)
      .where(inArray(methods.id, ids))
      .orderBy(asc(methods.id));
    expect(rows.filter((r) => r.heldoutGenerated?.length).length).toBeGreaterThan(15); // generated inputs were made
    expect(summary.contentHash).toBe(GOLDEN_HASH);
    expect(crypto.createHash('sha256').update(JSON.stringify(rows)).digest('hex')).toBe(GOLDEN_ROWS);
  });
});
