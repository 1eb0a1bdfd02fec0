// The judge card shipped with the benchmark, on the real stack: `calibrate judge --ship` writes it, the check
// (shippedJudgeCardWorkflow) re-judges its sample anew and stores it as this machine's card when it agrees,
// and a tampered, foreign-keyed, malformed or absent file is never used, each with a line saying why.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { judgeCards } from '../../db/schema/judgeCards';
import { llmCalls } from '../../db/schema/llm';
import { judgeCardStatus } from '../../db/queries/judgeCards';
import { shippedCardFileSchema, type ShippedCardCheck } from '../../domain/judge/shippedCard';
import { findShippedCard } from '../../platform/judge/shippedCardFile';
import { startShippedJudgeCard } from '../../scripts/client/starters';
import { fixtureDataset, methodRow } from '../fixtures/datasetRows';
import { runCli } from '../helpers/cli';
import { maybeRecordHistory } from '../helpers/histories';
import { useStack } from '../helpers/stack';

const DATASET = 'fixture-shipped-card';
const METHODS = [
  { id: 'ship/add', entry: 'add', code: 'def add(a, b):\n    return a + b\n', gold: 'Returns the sum of a and b.', heldout: ['1, 2', '0, 0', '-3, 3'] },
  { id: 'ship/neg', entry: 'neg', code: 'def neg(x):\n    return -x\n', gold: 'Returns x negated.', heldout: ['1', '0', '-5'] },
  { id: 'ship/dbl', entry: 'dbl', code: 'def dbl(x):\n    return 2 * x\n', gold: 'Returns twice x.', heldout: ['1', '3', '-2'] },
  { id: 'ship/sq', entry: 'sq', code: 'def sq(x):\n    return x * x\n', gold: 'Returns the square of x.', heldout: ['2', '3', '-4'] },
];

const stack = useStack({
  workers: ['pau', 'pau-sandbox'],
  setup: fixtureDataset(
    DATASET,
    METHODS.map((m, i) =>
      methodRow({
        id: m.id,
        source: i % 2 ? 'odd' : 'even',
        entryPoint: m.entry,
        code: m.code,
        goldDescription: m.gold,
        probeInputs: [m.heldout[0]!],
        probeOutputs: [{ ok: true, repr: '0' }],
        heldoutInputs: m.heldout,
        heldoutGenerated: [],
      }),
    ),
    'validation',
  ),
});

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-shipped-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const input = { judgeModel: 'mock-oracle', coderModel: 'mock-oracle', dataset: DATASET, split: 'validation', cardsDir: dir };
const check = async (): Promise<ShippedCardCheck> => (await startShippedJudgeCard(stack.client, input)).result();
let original = '';
const forget = () => stack.db.delete(judgeCards).where(eq(judgeCards.dataset, DATASET));

describe('the shipped judge card', () => {
  it('is written by calibrate judge --ship, verified on a sample asked anew, and stored with its provenance', async () => {
    const r = await runCli(
      ['calibrate', 'judge', '--judge', 'mock-oracle', '--dataset', DATASET, '--methods', '4', '--min-methods', '4', '--ship', '--ship-dir', dir],
      {},
      180_000,
    );
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/shipped: .*mock-oracle\.json \(4 methods; `npm start` verifies it on a sample/);
    const file = path.join(dir, 'mock-oracle.json');
    original = fs.readFileSync(file, 'utf8');
    const shipped = shippedCardFileSchema.parse(JSON.parse(original));
    expect(shipped.key).toMatchObject({ judgeWeights: 'pau-scripted-mock:oracle', datasetContentHash: `fixture:${DATASET}`, split: 'validation' });
    expect(shipped.rows).toHaveLength(4);

    // A machine without the card: the check finds the file, re-judges 3 methods anew and keeps it.
    await forget();
    const h = await startShippedJudgeCard(stack.client, input);
    const c = await h.result();
    await maybeRecordHistory(h, 'shippedJudgeCard.json');
    expect(c.status).toBe('verified');
    if (c.status !== 'verified') return;
    expect(c.sample.methods).toEqual(shipped.rows.slice(0, 3).map((x) => x.methodId));
    expect(c.sample).toMatchObject({ within: c.sample.pairs, maxAbsDiff: 0, agrees: true });
    expect(c.sample.pairs).toBeGreaterThanOrEqual(3 * 9); // each method's rungs with the reference and its code-only ones
    const first = shipped.rows[0]!.methodId;
    const [asked] = await stack.db
      .select({ n: sql<number>`count(*)::int` })
      .from(llmCalls)
      .where(sql`${llmCalls.callKey} like ${`card/${first}/mock-oracle/verify/%`}`);
    expect(asked?.n).toBeGreaterThanOrEqual(9);
    // Measures and checks are recomputed with the project's thresholds, not the file's: 4 methods are under 20.
    const status = await judgeCardStatus(stack.db, { judgeModel: 'mock-oracle', coderModel: 'mock-oracle', dataset: DATASET });
    expect(status.status).toBe('unqualified');
    if (status.status === 'missing') return;
    expect(status.card.shipped).toMatchObject({ fileSha256: expect.stringMatching(/^[0-9a-f]{64}$/), computedAt: shipped.computed.at });
    expect(status.card.thresholds.minMethods).toBe(20);
    expect(status.card.measures.scored).toBe(4);
    if (status.status === 'unqualified')
      expect(status.failed).toEqual(['methods scored on gold, wrong, empty and injection (judge)', expect.stringMatching(/^code-only: methods scored/)]);

    // A tampered file: the sample's scores no longer agree, so nothing is stored and the caller computes the card.
    await forget();
    const tampered = { ...shipped, rows: shipped.rows.map((x, i) => (i === 0 ? { ...x, scores: { ...x.scores, gold: 3 } } : x)) };
    fs.writeFileSync(file, JSON.stringify(tampered));
    const d = await check();
    expect(d.status).toBe('disagrees');
    if (d.status === 'disagrees') expect(d.sample.why.join('; ')).toMatch(/a score moved 2\.00/);
    expect(await stack.db.select().from(judgeCards).where(eq(judgeCards.dataset, DATASET))).toHaveLength(0);

    // Another key: ignored, saying which field differs.
    fs.writeFileSync(file, JSON.stringify({ ...shipped, key: { ...shipped.key, promptVersion: 'judge-v3/contrast' } }));
    const i = await check();
    expect(i).toEqual({
      status: 'ignored',
      why: [expect.stringMatching(/mock-oracle\.json is for another key: promptVersion: shipped judge-v3\/contrast, here judge-v4\//)],
    });
  }, 300_000);

  it('calibrate judge --shipped checks it as npm start does, and prints the card with where it came from', async () => {
    fs.writeFileSync(path.join(dir, 'mock-oracle.json'), original);
    await forget();
    const r = await runCli(['calibrate', 'judge', '--judge', 'mock-oracle', '--dataset', DATASET, '--shipped', '--ship-dir', dir], {}, 180_000);
    expect(r.stdout).toMatch(/shipped judge card verified on a sample \(\d+ of \d+ scores of 3 methods within 0\.25, largest move 0\.00\)/);
    expect(r.stdout).toMatch(/judge card: judge mock-oracle NOT QUALIFIED against a reference/);
    expect(r.stdout).toMatch(/shipped with the benchmark \(.*mock-oracle\.json, computed \d{4}-\d\d-\d\d on .*\); verified here/);
    expect(r.code).toBe(1); // 4 methods: under the 20 a card needs
    const both = await runCli(['calibrate', 'judge', '--judge', 'mock-oracle', '--dataset', DATASET, '--ship', '--shipped']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--ship writes this machine's card, --shipped checks the shipped one/);
  }, 240_000);

  it('a malformed file is refused by field, a foreign model has no weights to match, and no directory means none', async () => {
    const bad = path.join(dir, 'bad');
    fs.mkdirSync(bad);
    fs.writeFileSync(path.join(bad, 'broken.json'), '{"kind": "pau-judge-card", "version": 1, "rows": []}');
    fs.writeFileSync(path.join(bad, 'cut.json'), '{"kind": "pau-j');
    const q = { judgeModel: 'mock-oracle', coderModel: 'mock-oracle', dataset: DATASET, split: 'validation' };
    const found = await findShippedCard(stack.db, q, bad);
    expect(found.status).toBe('ignored');
    const why = found.status === 'matches' ? [] : found.why;
    expect(why).toContainEqual(expect.stringMatching(/broken\.json refused: key: /));
    expect(why).toContainEqual(expect.stringMatching(/cut\.json refused: not JSON/));
    expect(await findShippedCard(stack.db, { ...q, judgeModel: 'ckpt:nope' }, bad)).toEqual({
      status: 'ignored',
      why: [expect.stringMatching(/^no shipped card can hold here: .*ckpt:nope/)],
    });
    expect(await findShippedCard(stack.db, q, path.join(dir, 'absent'))).toEqual({
      status: 'none',
      why: [expect.stringMatching(/^no judge card is shipped with/)],
    });
  });
});
