// The control of "contradicts observed" for a method without a gold description (CruxEval): code written
// from its accepted reference description (`pau dataset describe`) is checked against the agent's
// observations like the gold code of other sources (issue 27, item 7). Real sandbox, Temporal, Postgres.
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { episodes, judgments, referenceDescriptions } from '../../db/schema/index';
import type { GoldControl } from '../../domain/judge/diagnostics';
import { startBenchmark } from '../../scripts/client/starters';
import { insertFixtureDataset } from '../helpers/fixtureDataset';
import { useStack } from '../helpers/stack';

const DATASET = 'validity-reference-gold-control';
const CODE = 'def f(x):\n    return x * 2 + 1\n';
const METHOD = 'refgold/f';

const stack = useStack({
  workers: ['pau', 'pau-sandbox'],
  timeoutMs: 180_000,
  setup: async ({ db }) => {
    await insertFixtureDataset(db, DATASET, [
      {
        id: METHOD,
        source: 'cruxeval',
        sourceId: 'refgold',
        entryPoint: 'f',
        signature: 'def f(x):',
        code: CODE,
        goldKind: 'code-only',
        goldDescription: null,
        verdict: 'accepted',
        probeInputs: ['3', '5'],
        heldoutInputs: [],
        heldoutGenerated: ['7', '-2', '0'],
        heldoutGeneratedOutputs: [
          { ok: true, repr: '15' },
          { ok: true, repr: '-3' },
          { ok: true, repr: '1' },
        ],
        codeMatchExclusion: null,
      },
    ]);
    // The scripted oracle coder writes the original when a code-only method's description quotes its code.
    await db
      .insert(referenceDescriptions)
      .values({
        methodId: METHOD,
        model: 'mock-oracle',
        promptVersion: 'test',
        description: `Returns twice x plus one, as in:\n${CODE}`,
        coderModel: 'mock-oracle',
        codeMatch: 1,
        threshold: 1,
        status: 'accepted',
      })
      .onConflictDoNothing();
  },
});

describe('gold control through an accepted reference description', () => {
  it('a CruxEval method with an accepted reference gets the control (checked, agrees), not "no-gold-description"', { timeout: 240_000 }, async () => {
    const runId = `refgold-${Date.now().toString(36)}`;
    const bench = await (
      await startBenchmark(stack.client, runId, {
        dataset: DATASET,
        split: 'test',
        models: ['mock-oracle'],
        settings: ['interactive'],
        samples: 1,
        judgeModel: 'mock-oracle',
      })
    ).result();
    expect(bench.totals.failed).toBe(0);
    const [row] = await stack.db
      .select({ j: judgments })
      .from(judgments)
      .innerJoin(episodes, eq(episodes.id, judgments.episodeId))
      .where(and(eq(episodes.runId, runId), eq(judgments.judgeModel, 'mock-oracle')));
    const control = (row?.j.diagnostics as { goldControl?: GoldControl } | undefined)?.goldControl;
    expect(control?.reason).toBeUndefined();
    expect(control?.checked).toBeGreaterThan(0);
    expect(control?.agrees).toBe(true);
  });
});
