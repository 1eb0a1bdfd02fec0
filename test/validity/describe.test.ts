// Reference descriptions (`pau dataset describe`) on the real stack: the describing model's text is kept
// only when code written from it matches the original on held-out inputs (threshold configurable), every
// attempt is stored with its provenance, methods excluded from code match are rejected without a model
// call. The scripted mock stands in for the models: `oracle` describes by quoting the code (the scripted
// coder turns that back into the original), `null` answers a fixed description that says nothing.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { referenceDescriptions } from '../../db/schema/descriptions';
import { acceptedReferenceDescriptions, goldOrReference, referenceAttempts } from '../../platform/dataset/referenceDescriptions';
import { DESCRIBE_PROMPT_VERSION } from '../../domain/describe/describePrompt';
import { NULL_DESCRIPTION } from '../../domain/describe/scriptedDescriber';
import { startDescribeRun } from '../../scripts/client/starters';
import { runCli } from '../helpers/cli';
import { fixtureDataset } from '../fixtures/datasetRows';
import { useStack } from '../helpers/stack';

const DATASET = 'validity-describe';
const base = { source: 'cruxeval', goldKind: 'code-only', goldDescription: null, verdict: 'accepted' as const, signature: 'def f(x):', entryPoint: 'f' };
const METHODS = [
  {
    ...base,
    id: 'describe/double',
    sourceId: 'double',
    code: 'def f(x):\n    return x * 2 + 1\n',
    probeInputs: ['3'],
    heldoutInputs: ['4'],
    heldoutGenerated: ['0', '-3', '10'],
    split: 'train' as const,
  },
  {
    ...base,
    id: 'describe/const',
    sourceId: 'const',
    code: 'def f(x):\n    return 1\n',
    probeInputs: ['3'],
    heldoutInputs: [],
    heldoutGenerated: ['0', '5'],
    codeMatchExclusion: 'fewer-than-2-distinct-heldout-outputs',
    split: 'train' as const,
  },
  {
    ...base,
    id: 'describe/gold',
    sourceId: 'gold',
    goldKind: 'docstring',
    goldDescription: 'Adds one.',
    code: 'def f(x):\n    return x + 1\n',
    probeInputs: ['3'],
    heldoutInputs: ['4'],
    heldoutGenerated: ['0', '1'],
    split: 'train' as const,
  },
  {
    ...base,
    id: 'describe/in-test',
    sourceId: 'in-test',
    code: 'def f(x):\n    return -x\n',
    probeInputs: ['3'],
    heldoutInputs: ['4'],
    heldoutGenerated: ['0', '1'],
    split: 'test' as const,
  },
];

const stack = useStack({
  workers: ['pau', 'pau-sandbox'],
  timeoutMs: 180_000,
  setup: fixtureDataset(DATASET, METHODS),
});

const attempts = async (model: string) =>
  (await stack.db.select().from(referenceDescriptions).where(eq(referenceDescriptions.model, model))).sort((a, b) => (a.methodId < b.methodId ? -1 : 1));

describe('pau dataset describe', () => {
  it('keeps a description whose code matches on every held-out input, with its provenance', { timeout: 180_000 }, async () => {
    const r = await (await startDescribeRun(stack.client, { dataset: DATASET, model: 'mock-oracle' })).result();
    // Only train methods without a gold description: double and const (gold has one; in-test is test).
    expect(r).toMatchObject({ total: 2, accepted: 1, rejected: 1, failed: 0, split: 'train', threshold: 1, coderModel: 'mock-oracle' });
    const [cst, dbl] = await attempts('mock-oracle');
    expect(dbl).toMatchObject({
      methodId: 'describe/double',
      status: 'accepted',
      codeMatch: 1,
      threshold: 1,
      coderModel: 'mock-oracle',
      promptVersion: DESCRIBE_PROMPT_VERSION,
      reason: null,
    });
    expect(dbl!.description).toContain('return x * 2 + 1');
    expect(dbl!.generatedCode).toContain('return x * 2 + 1');
    expect(dbl!.createdAt).toBeInstanceOf(Date);
    expect(dbl!.detail).toMatchObject({ heldout: 4, nGiven: 1, run: `describe-run/${DATASET}/mock-oracle` });
    // Excluded from code match: nothing to check a description against, so no model is asked.
    expect(cst).toMatchObject({
      methodId: 'describe/const',
      status: 'rejected',
      codeMatch: null,
      reason: 'code-match-excluded: fewer-than-2-distinct-heldout-outputs',
      description: '',
      generatedCode: null,
    });

    // The read API the critic uses: the source's gold where there is one, else the accepted reference.
    const refs = await acceptedReferenceDescriptions(
      stack.db,
      METHODS.map((m) => m.id),
    );
    expect([...refs.keys()]).toEqual(['describe/double']);
    expect(goldOrReference({ id: 'describe/double', goldDescription: null }, refs)).toMatchObject({ kind: 'reference' });
    expect(goldOrReference({ id: 'describe/gold', goldDescription: 'Adds one.' }, refs)).toEqual({ text: 'Adds one.', kind: 'gold' });
    expect(goldOrReference({ id: 'describe/const', goldDescription: null }, refs)).toBeNull();

    // Already attempted by this model and prompt: a second run has nothing to do.
    const again = await (await startDescribeRun(stack.client, { dataset: DATASET, model: 'mock-oracle' })).result();
    expect(again.total).toBe(0);
  });

  it('rejects a description whose code does not match; the threshold decides (CLI)', { timeout: 180_000 }, async () => {
    const r = await (await startDescribeRun(stack.client, { dataset: DATASET, model: 'mock-null', coderModel: 'mock-oracle', split: 'all' })).result();
    expect(r).toMatchObject({ total: 3, accepted: 0, rejected: 3 }); // double, const, in-test
    const rows = await attempts('mock-null');
    const dbl = rows.find((x) => x.methodId === 'describe/double')!;
    expect(dbl).toMatchObject({ status: 'rejected', codeMatch: 0, coderModel: 'mock-oracle', reason: 'code match 0.000 below 1' });
    expect(dbl.description).toContain(NULL_DESCRIPTION);

    // With threshold 0 the same (useless) description passes: the threshold is the run's choice, recorded.
    const cli = await runCli([
      'dataset',
      'describe',
      DATASET,
      '--model',
      'mock-null',
      '--coder-model',
      'mock-oracle',
      '--threshold',
      '0',
      '--force',
      '--limit',
      '1',
    ]);
    expect(cli.code).toBe(0);
    expect(cli.stdout).toContain('scripted mock, not a language model');
    expect(cli.stdout).toMatch(/validity-describe\s+train\s+mock-null\s+mock-oracle\s+0\s+1\s+1\s+0\s+0\s+2\s+1/);
    const history = await referenceAttempts(stack.db, 'describe/double');
    expect(history.map((h) => [h.model, h.status, h.threshold])).toEqual(
      expect.arrayContaining([
        ['mock-null', 'accepted', 0],
        ['mock-oracle', 'accepted', 1],
      ]),
    );
  });
});
