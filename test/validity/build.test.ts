// Issue 12's data rules in a real build (Postgres + the real sandbox; the build's three steps called
// directly, as the workflow's activities do): generated held-out inputs and code-match exclusion with its
// reason, CodeAlpaca functions without example calls accepted through generated inputs and the same
// sandbox filters, near-duplicates by behaviour kept in one split, the split-by-source scheme, and a
// deterministic content hash.
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCheckMethodsBatch } from '../../activities/dataset/checkBatch';
import { poolDatasetSandbox } from '../../activities/dataset/sandboxClient';
import { closeSharedSandboxPool } from '../../activities/sandbox/index';
import { connect, type DbHandle } from '../../db/client';
import { datasetMethods, methods } from '../../db/schema/datasets';
import { finalizeBuild, prepareBuild } from '../../activities/dataset/build';
import { codeAlpacaFromText } from '../../domain/dataset/records/codealpaca';
import { cruxEvalFromText } from '../../domain/dataset/records/cruxeval';
import type { BuildConfigInput } from '../../domain/dataset/config';
import type { SourceName } from '../../domain/dataset/sources';

let dbh: DbHandle;
beforeAll(() => {
  dbh = connect(process.env.DATABASE_URL, 4);
});
afterAll(async () => {
  await closeSharedSandboxPool();
  await dbh.close();
});

const crux = (id: string, code: string, input: string) => JSON.stringify({ id, code, input, output: '' });
const CRUX = [
  crux('double', 'def f(x):\n    return x * 2\n', '3'),
  // Other code (not a near-duplicate), same behaviour on ints: a behaviour cluster with `double`.
  crux('twice', 'def f(n):\n    total = 0\n    for _ in range(2):\n        total += n\n    return total\n', '7'),
  // One outcome whatever the input: no code match possible (a constant function would score 100 %).
  crux('constant', 'def f(xs):\n    return 42\n', '[1, 2]'),
  crux('add', 'def f(a, b):\n    return a + b\n', '1, 2'),
  crux('first', 'def f(s):\n    return s[0]\n', "'hello'"),
].join('\n');
const CODEALPACA = JSON.stringify([
  // No example call in the response: the build generates calls from the signature and body.
  { instruction: 'Count the vowels in a string.', input: '', output: "def count_vowels(s):\n    return sum(1 for c in s.lower() if c in 'aeiou')\n" },
  // Generated dicts never have these keys: every call raises, the method is rejected with its reason.
  { instruction: 'Compute the total of an order.', input: '', output: "def order_total(order):\n    return order['qty'] * order['price']\n" },
]);

const load = async (source: SourceName) => (source === 'cruxeval' ? cruxEvalFromText(CRUX) : codeAlpacaFromText(CODEALPACA));
const check = makeCheckMethodsBatch({ db: () => dbh.db, sandbox: () => poolDatasetSandbox() });

async function build(config: BuildConfigInput & { name: string }) {
  const prep = await prepareBuild(dbh.db, { sources: ['cruxeval', 'codealpaca'], ...config }, `test/${config.name}`, { load });
  if (prep.toCheck.length > 0) await check({ ids: prep.toCheck, ...(config.inputs ? { inputs: config.inputs } : {}) });
  return { prep, summary: await finalizeBuild(dbh.db, config.name) };
}

const row = async (id: string) => (await dbh.db.select().from(methods).where(eq(methods.id, id)))[0]!;
const splits = async (name: string) =>
  new Map((await dbh.db.select().from(datasetMethods).where(eq(datasetMethods.datasetName, name))).map((r) => [r.methodId, r.split]));

describe('a build under the validity rules', () => {
  it('generated held-out inputs, exclusions with reasons, generated example calls, behaviour clusters; the same hash twice', { timeout: 240_000 }, async () => {
    const { summary } = await build({ name: 'v-proportional', split: { test: 3, validation: 0 } });

    // Held-out inputs generated and run by the build (typed, stored with their outcomes).
    const add = await row('cruxeval/add');
    expect(add.verdict).toBe('accepted');
    expect(add.heldoutGenerated).toHaveLength(10);
    expect(add.heldoutGeneratedOutputs).toHaveLength(10);
    expect(add.codeMatchExclusion).toBeNull();
    expect(add.heldoutGenerated!.every((t) => /^-?\d+, -?\d+$/.test(t))).toBe(true);
    // Raising inputs are kept (the exception is behaviour): `s[0]` raises IndexError on ''.
    const first = await row('cruxeval/first');
    expect(first.heldoutGeneratedOutputs!.some((o) => !o.ok && o.excType === 'IndexError')).toBe(true);

    // A method without two distinct held-out outcomes is excluded from code match, the reason stored.
    const constant = await row('cruxeval/constant');
    expect(constant.verdict).toBe('accepted');
    expect(constant.codeMatchExclusion).toBe('fewer-than-2-distinct-heldout-outputs');
    expect(new Set(constant.heldoutGeneratedOutputs!.map((o) => o.repr))).toEqual(new Set(['42']));
    const excluded = Object.values(summary.heldout!).reduce((n, h) => n + (h.excluded['fewer-than-2-distinct-heldout-outputs'] ?? 0), 0);
    expect(excluded).toBe(1);

    // CodeAlpaca without example calls: generated calls, the same sandbox filters.
    const vowels = await row('codealpaca/2k:0');
    expect(vowels.verdict).toBe('accepted');
    expect((vowels.meta as { inputsGenerated?: number }).inputsGenerated).toBe(12);
    expect(vowels.probeInputs.length).toBeGreaterThan(0);
    expect(vowels.probeInputs.every((t) => /^'.*'$/.test(t))).toBe(true); // strings, from `s.lower()`
    expect(vowels.probeOutputs!.every((o) => o.ok && /^\d+$/.test(o.repr ?? ''))).toBe(true);
    const order = await row('codealpaca/2k:1');
    expect(order).toMatchObject({ verdict: 'rejected', rejectReasons: ['no-working-generated-inputs'] });
    expect(summary.sources.codealpaca).toMatchObject({ accepted: 1, inputsGenerated: 1, rejected: { 'no-working-generated-inputs': 1 } });

    // Near-duplicates by behaviour: one cluster, one split.
    const [double, twice] = [await row('cruxeval/double'), await row('cruxeval/twice')];
    expect(double.nearHash).not.toBe(twice.nearHash);
    expect(double.behaviourKey).toMatch(/^[0-9a-f]{64}$/);
    expect(twice.behaviourKey).toBe(double.behaviourKey);
    expect(add.behaviourKey).not.toBe(double.behaviourKey);
    const s = await splits('v-proportional');
    expect(s.get('cruxeval/twice')).toBe(s.get('cruxeval/double'));
    expect(summary.behaviour).toMatchObject({ clusters: 1, clustered: 2, largest: [['cruxeval/double', 'cruxeval/twice']] });
    expect(summary.splits.test).toBe(3);

    // Deterministic: the same inputs give the same rows and hash, and nothing is rerun.
    const again = await build({ name: 'v-proportional', split: { test: 3, validation: 0 } });
    expect(again.prep.toCheck).toEqual([]);
    expect(again.summary.contentHash).toBe(summary.contentHash);
    expect(await splits('v-proportional')).toEqual(s);
  });

  it('split by source: CruxEval is test, CodeAlpaca trains; the scheme is in the config and the summary', { timeout: 120_000 }, async () => {
    const { prep, summary } = await build({
      name: 'v-by-source',
      split: { scheme: 'by-source', validation: 0, bySource: { cruxeval: 'test', codealpaca: 'train' } },
    });
    expect(prep.toCheck).toEqual([]); // the same method rows as the proportional build: checked once
    const s = await splits('v-by-source');
    expect([...s.entries()].sort()).toEqual([
      ['codealpaca/2k:0', 'train'],
      ['cruxeval/add', 'test'],
      ['cruxeval/constant', 'test'],
      ['cruxeval/double', 'test'],
      ['cruxeval/first', 'test'],
      ['cruxeval/twice', 'test'],
    ]);
    expect(summary.scheme).toBe('by-source: test=cruxeval; train=codealpaca (validation 0 from train sources)');
    expect(summary.sources.cruxeval!.splits).toEqual({ test: 5, validation: 0, train: 0 });
    const other = await build({ name: 'v-proportional-2', split: { test: 3, validation: 0 } });
    expect(other.summary.contentHash).not.toBe(summary.contentHash);
  });

  it('without input generation the CodeAlpaca functions are rejected for lack of example calls, as before', { timeout: 120_000 }, async () => {
    const { summary } = await build({ name: 'v-no-generation', split: { test: 2, validation: 0 }, inputs: { generateMissing: false } });
    expect(summary.sources.codealpaca!.rejected).toEqual({ 'no-known-inputs': 2 });
    const rows = await dbh.db
      .select({ id: methods.id, verdict: methods.verdict })
      .from(methods)
      .where(inArray(methods.id, ['codealpaca/2k:0']));
    expect(rows).toEqual([{ id: 'codealpaca/2k:0', verdict: 'rejected' }]);
  });
});
