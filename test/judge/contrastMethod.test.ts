// The contrast method as the judge looks it up (activities/judge/contrastMethod.ts), on real Postgres: the
// predecessor in the split's contrast order; the order read once per build of the data set (its content
// hash) and read again after a rebuild; a method alone in its split takes its contrast from every stored method.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { contrastMethodFor } from '../../activities/judge/contrastMethod';
import { datasetMethods, datasets } from '../../db/schema/datasets';
import { insertFixtureDataset } from '../fixtures/datasetRows';
import { useStack } from '../helpers/stack';

const DATASET = 'contrast-lookup';
const method = (id: string, source: string) => ({
  id: `${DATASET}/${id}`,
  source,
  sourceId: id,
  entryPoint: 'f',
  signature: 'def f(x)',
  code: `def f(x):\n    return "${id}"\n`,
  codeHash: `hash-${DATASET}-${id}`,
  goldDescription: `Returns the string ${id}.`,
  split: 'validation' as const,
});

describe('the contrast method of a stored method', () => {
  const stack = useStack({
    setup: async (s) => {
      await insertFixtureDataset(s.db, DATASET, [method('a', 'mbpp'), method('b', 'mbpp'), method('c', 'mbpp')]);
      await insertFixtureDataset(s.db, `${DATASET}-alone`, [{ ...method('alone', 'mbpp'), split: 'test' }]);
    },
  });
  const scope = { dataset: DATASET, split: 'validation' };

  it('is the method before it in its split (the first takes the last), shown with its code and gold', async () => {
    const b = await contrastMethodFor(stack.db, `${DATASET}/b`, scope);
    expect(b?.methodId).toBe(`${DATASET}/a`);
    expect(b?.input.code).toContain('return "a"');
    expect(b?.input.goldDescription).toBe('Returns the string a.');
    expect((await contrastMethodFor(stack.db, `${DATASET}/a`, scope))?.methodId).toBe(`${DATASET}/c`);
    // Without a scope: the method's first membership.
    expect((await contrastMethodFor(stack.db, `${DATASET}/c`, null))?.methodId).toBe(`${DATASET}/b`);
  });

  it('reads the order again when the data set is rebuilt (a new content hash), not before', async () => {
    await insertFixtureDataset(stack.db, `${DATASET}-extra`, [method('d', 'mbpp')]);
    await stack.db
      .insert(datasetMethods)
      .values({ datasetName: DATASET, methodId: `${DATASET}/d`, split: 'validation', position: 3 })
      .onConflictDoNothing();
    // The same build as far as the hash says: the order read before stands (a's predecessor is still c).
    expect((await contrastMethodFor(stack.db, `${DATASET}/a`, scope))?.methodId).toBe(`${DATASET}/c`);
    await stack.db
      .update(datasets)
      .set({ contentHash: `fixture:${DATASET}:rebuilt` })
      .where(eq(datasets.name, DATASET));
    expect((await contrastMethodFor(stack.db, `${DATASET}/a`, scope))?.methodId).toBe(`${DATASET}/d`);
  });

  it('a method alone in its split: the method before it among every stored method, by id', async () => {
    const alone = await contrastMethodFor(stack.db, `${DATASET}/alone`, { dataset: `${DATASET}-alone`, split: 'test' });
    expect(alone).not.toBeNull();
    expect(alone?.methodId).not.toBe(`${DATASET}/alone`);
  });
});
