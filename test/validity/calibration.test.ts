// The calibration suite on the real stack (sandbox and workflows, no judge model): the original scores
// 1.0 against itself, mutants generated from the AST in the sandbox score < 1 on most methods, constant
// and identity functions and the lookup table of the in-context examples are the floor, a method with no usable held-out input is excluded with a
// reason, and `pau calibrate` prints the controls.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { runs } from '../../db/schema/runs';
import { fixtureDataset, methodRow } from '../fixtures/datasetRows';
import { summarizeCalibration } from '../../domain/calibration/summarize';
import type { MethodCalibration } from '../../domain/calibration/types';
import { startCalibration } from '../../scripts/client/calibration';
import { buildReport } from '../../db/queries/benchmarkReportData';
import { renderHtml } from '../../domain/report/renderHtml';
import { runCli } from '../helpers/cli';
import { useStack } from '../helpers/stack';
import { benchmarkConfig } from '../fixtures/runs';

const DATASET = 'fixture-calibration';
const METHODS = [
  { id: 'cal/add', entry: 'add', code: 'def add(a, b):\n    return a + b\n', heldout: ['7, 8', '0, 0', '-2, 5', '10, 1'] },
  {
    id: 'cal/classify',
    entry: 'classify',
    code: "def classify(n):\n    if n < 0:\n        return 'negative'\n    if n % 2 == 0:\n        return 'even'\n    return 'odd'\n",
    heldout: ['0', '-1', '13', '8', '-7'],
  },
  { id: 'cal/tail', entry: 'tail', code: 'def tail(xs):\n    return [xs[i] for i in range(1, len(xs))]\n', heldout: ['[1, 2, 3]', '[5]', '[4, 4, 9, 1]'] },
  {
    id: 'cal/mean',
    entry: 'mean',
    code: 'def mean(xs):\n    if not xs:\n        raise ValueError("empty")\n    return sum(xs) / len(xs)\n',
    heldout: ['[10, 20]', '[1]', '[]', '[2, 3, 7]'],
  },
  // Every held-out input raises a limit: nothing counts, the method is excluded with the reason.
  { id: 'cal/spin', entry: 'spin', code: 'def spin(n):\n    while True:\n        pass\n', heldout: ['1'] },
];

const stack = useStack({
  workers: ['pau', 'pau-sandbox'],
  setup: fixtureDataset(
    DATASET,
    METHODS.map((m) => methodRow({ id: m.id, entryPoint: m.entry, code: m.code, heldoutInputs: m.heldout })),
  ),
});

describe('calibration suite', () => {
  it('original 1.0, mutants < 1 on most methods, constant and identity floors, exclusion with a reason', async () => {
    const runId = `calibrate-${Date.now().toString(36)}`;
    const summary = await (await startCalibration(stack.client, runId, { dataset: DATASET, split: 'test' })).result();
    expect(summary.methods).toBe(5);
    expect(summary.scored).toBe(4);
    expect(summary.excluded).toEqual([{ methodId: 'cal/spin', reason: expect.stringContaining('no held-out input counts') }]);
    expect(summary.originalMean).toBe(1);
    expect(summary.originalBelowOne).toEqual([]);
    expect(summary.methodsWithMutants).toBe(4);
    expect(summary.shareAnyMutantDetected).toBe(1);
    expect(summary.shareMutantsDetected).toBeGreaterThanOrEqual(0.7);
    for (const kind of ['operator swap', 'constant change', 'off-by-one', 'swapped branch']) {
      expect(summary.byKind.find((k) => k.kind === kind)?.mutants, kind).toBeGreaterThan(0);
    }
    expect(summary.constantFloor).not.toBeNull();
    expect(summary.constantFloor!).toBeLessThan(0.5);
    expect(summary.identityMean!).toBeLessThan(0.5);
    // The lookup-table baseline (the in-context examples tabulated, None elsewhere) on the held-out inputs
    // outside its table: no method here returns None, so it earns nothing.
    expect(summary.lookupMethods).toBe(4);
    expect(summary.lookupMean).toBe(0);

    const [row] = await stack.db.select().from(runs).where(eq(runs.id, runId));
    expect(row?.kind).toBe('calibration');
    expect(row?.status).toBe('completed');
    const stored = (row?.summary as { methods: Record<string, MethodCalibration> } | undefined)?.methods ?? {};
    // The stored rows reproduce the summary; every mutant of `classify` names its kind and site.
    expect(summarizeCalibration(Object.values(stored))).toEqual(summary);
    const classify = stored['cal/classify']!;
    expect(classify.scores.find((s) => s.kind === 'original')?.codeMatch).toBe(1);
    expect(classify.scores.filter((s) => s.kind === 'swapped branch').every((s) => (s.codeMatch ?? 1) < 1)).toBe(true);
    expect(classify.scores.find((s) => s.kind === 'constant')?.site).toMatch(/^'(even|odd|negative)'$/);
    expect(classify.scores.find((s) => s.kind === 'lookup')).toMatchObject({
      codeMatch: 0,
      site: expect.stringMatching(/^20 in-context examples; \d+ held-out inputs outside the table$/),
    });

    // A benchmark report on the same split shows these controls.
    const benchId = `${runId}-bench`;
    await stack.db.insert(runs).values({ id: benchId, kind: 'benchmark', status: 'completed', config: benchmarkConfig({ dataset: DATASET, split: 'test' }) });
    const doc = await buildReport({ runId: benchId, db: stack.db });
    expect(doc.calibration?.latest?.runId).toBe(runId);
    const html = renderHtml(doc);
    expect(html).toContain('Calibration controls (no judge model involved)');
    expect(html).toMatch(/original vs itself \(mean code match\)<\/td><td>100\.0%/);
    expect(html).toContain('<code>cal/spin</code>: no held-out input counts');
  }, 240_000);

  it('`pau calibrate` prints the controls and exits 0 when the original scores 1.0', async () => {
    const r = await runCli(['calibrate', '--dataset', DATASET, '--split', 'test', '--limit', '2'], {}, 180_000);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('calibrated 2 methods');
    expect(r.stdout).toMatch(/original vs itself \(mean code match\)\s+100\.0%/);
    expect(r.stdout).toContain('best constant function');
    expect(r.stdout).toContain('identity function');
    expect(r.stdout).toMatch(/lookup table of the in-context examples \(unseen held-out inputs\)\s+0\.0% of 2/);
  }, 240_000);
});
