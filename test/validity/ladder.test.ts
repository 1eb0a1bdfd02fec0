// The description ladder: its rungs, its rank statistics against hand-computed cases, and the ladder run
// end to end with the scripted judge (word overlap with the gold description) on the real stack: the CLI
// starts ladderWorkflow on a real `pau` worker.
import { describe, expect, it } from 'vitest';
import { buildLadders, summarizeLadder } from '../../domain/calibration/ladder';
import { partialDescription } from '../../domain/judge/cardRungs';
import { kendallTauB } from '../../domain/stats/kendallTau';
import { insertDatasetRows } from '../fixtures/datasetRows';
import { runCli } from '../helpers/cli';
import { activitiesOf, maybeRecordHistory } from '../helpers/histories';
import { useStack } from '../helpers/stack';

describe('ladder rungs', () => {
  it('partial is the first sentence, or the first half of a one-sentence description', () => {
    expect(partialDescription('Adds two numbers. Returns their sum as an int.')).toBe('Adds two numbers.');
    expect(partialDescription('returns the sum of the two numbers a and b')).toBe('returns the sum of the');
  });

  it('wrong is the next method with a different gold; methods without gold are skipped', () => {
    const l = buildLadders([
      { id: 'a', goldDescription: 'A.' },
      { id: 'b', goldDescription: 'A.' },
      { id: 'c', goldDescription: 'C.' },
      { id: 'd', goldDescription: '  ' },
    ]);
    expect(l.map((x) => [x.methodId, x.descriptions.wrong, x.descriptions.empty])).toEqual([
      ['a', 'C.', ''],
      ['b', 'C.', ''],
      ['c', 'A.', ''],
    ]);
    expect(buildLadders([{ id: 'a', goldDescription: 'A.' }])).toEqual([]);
  });
});

describe('ladder statistics', () => {
  it("Kendall's tau-b: same order 1, reversed -1, with ties as computed by hand", () => {
    expect(kendallTauB([4, 3, 2, 1], [5, 4, 2, 1])).toBe(1);
    expect(kendallTauB([4, 3, 2, 1], [1, 2, 3, 4])).toBe(-1);
    // y = 5, 5, 2, 1: pairs (1,2) tie in y; the other 5 concordant: (5 - 0) / sqrt(6 * 5) = 0.9129.
    expect(kendallTauB([4, 3, 2, 1], [5, 5, 2, 1])).toBeCloseTo(5 / Math.sqrt(30), 12);
    expect(kendallTauB([4, 3, 2, 1], [3, 3, 3, 3])).toBeNull();
  });

  it('monotone share, gold above wrong, mean tau and per-rung means; unparsable rows are counted apart', () => {
    const s = summarizeLadder([
      { gold: 5, partial: 4, wrong: 1, empty: 1 }, // monotone, tau 5/sqrt(30)
      { gold: 3, partial: 4, wrong: 2, empty: 1 }, // not monotone: (6 pairs, 1 discordant) tau 4/6
      { gold: 5, partial: null, wrong: 1, empty: 1 },
    ]);
    expect(s).toMatchObject({ methods: 3, scored: 2, incomplete: 1, monotone: 0.5, goldAboveWrong: 1 });
    expect(s.meanTau!).toBeCloseTo((5 / Math.sqrt(30) + 4 / 6) / 2, 12);
    expect(s.meanByRung).toEqual({ gold: 4, partial: 4, wrong: 1.5, empty: 1 });
  });
});

const DATASET = 'fixture-ladder';
const GOLDS = [
  ['lad/add', 'add', 'Returns the sum of the two numbers a and b. Works for ints and floats alike.'],
  ['lad/rev', 'rev', 'Returns the string s reversed, last character first. The empty string stays empty.'],
  ['lad/evens', 'evens', 'Returns the list of the even numbers in xs, in their original order. Odd ones are dropped.'],
] as const;

const stack = useStack({
  workers: ['pau'],
  setup: ({ db }) =>
    insertDatasetRows(
      db,
      DATASET,
      GOLDS.map(([id, entry, gold]) => ({
        id,
        source: 'lad',
        sourceId: entry,
        entryPoint: entry,
        signature: `def ${entry}(x):`,
        code: `def ${entry}(x):\n    return x\n`,
        goldDescription: gold,
        probeInputs: [],
        heldoutInputs: [],
        verdict: 'accepted' as const,
      })),
    ),
});

describe('pau calibrate ladder (scripted judge)', () => {
  it('scores gold 5 and empty 1 on every method, keeps the order and prints the agreement', async () => {
    const r = await runCli(['calibrate', 'ladder', '--judge', 'mock-oracle', '--methods', '3', '--dataset', DATASET, '--split', 'test']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    for (const [id] of GOLDS) expect(r.stdout).toMatch(new RegExp(`${id}\\s+5\\s+[1-5]\\s+[1-5]\\s+1\\b`));
    expect(r.stdout).toMatch(/methods scored on every rung\s+3\/3/);
    expect(r.stdout).toMatch(/monotone gold >= partial >= wrong >= empty\s+100%/);
    expect(r.stdout).toMatch(/gold > wrong\s+100%/);
    // The CLI ran the ladder as a workflow on the worker: one plan, then one judgment per method and rung.
    const id = decodeURIComponent(/\/workflows\/(\S+)/.exec(r.stdout)?.[1] ?? '');
    expect(id).toMatch(/^calibrate-ladder\/mock-oracle\/fixture-ladder\/test\//);
    const handle = stack.client.workflow.getHandle(id);
    const { scheduled } = await activitiesOf(handle);
    expect(scheduled).toEqual(['planLadder', ...Array<string>(12).fill('scoreLadderRung')]);
    await maybeRecordHistory(handle, 'ladder.json');
  }, 120_000);
});
