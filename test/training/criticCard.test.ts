// The critic card on the real stack: a scripted benchmark run records interactive episodes (mock-steps: one
// call per turn, its probes then repeats of them; mock-oracle: all probes in one step, so the card appends a
// repeat), `pau calibrate critic` rates them with the scripted critic, stores the card once and exits 0; the
// scripted null critic (no reward line) is not qualified (exit 1); a split with no episodes is a clear error;
// a GRPO report shows its critic's card, or the command that computes it.
import { and, eq, like } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { criticCards } from '../../db/schema/criticCards';
import { llmCalls } from '../../db/schema/llm';
import { runs } from '../../db/schema/runs';
import { loadGrpoReport } from '../../db/queries/grpoReportData';
import { criticCardWorkflowId } from '../../domain/training/criticCard';
import { renderGrpoReport, renderGrpoText } from '../../domain/trainingReport/grpoReport';
import { startBenchmark } from '../../scripts/client/starters';
import { ADD, type FixtureMethod, fixtureMethod, insertFixtureMethods, RAISES } from '../fixtures/episodeMethods';
import { grpoConfig } from '../fixtures/grpoConfig';
import { runCli } from '../helpers/cli';
import { maybeRecordHistory } from '../helpers/histories';
import { useStack } from '../helpers/stack';

const DATASET = 'fixture-critic-card';
/** Probes 5 and 7 both return 1: the second is an uninformative call (an int again, a 1 again). */
const SIGN = fixtureMethod({
  entryPoint: 'sign',
  code: 'def sign(n):\n    return (n > 0) - (n < 0)\n',
  gold: 'Returns 1 for a positive n, -1 for a negative n and 0 for zero.',
  probes: ['5', '7', '-2', '0'],
});
// Method ids of this file's own: the methods table is shared by every test file (the first insert of an id
// wins) and llm_calls is keyed by the request, so under the shared ids the on-policy card's test (same methods,
// same scripted episodes) could own some of these critic requests under its keys, and the count below would
// depend on file order.
const own = (m: FixtureMethod): FixtureMethod => ({ ...m, id: `fixture/critic-card-${m.entryPoint}` });
const [OWN_ADD, OWN_RAISES, OWN_SIGN] = [own(ADD), own(RAISES), own(SIGN)] as const;
const METHODS = [OWN_ADD, OWN_RAISES, OWN_SIGN];
const RUN_ID = `critic-card-bench-${Date.now().toString(36)}`;

const stack = useStack({
  workers: ['pau', 'pau-sandbox'],
  setup: async ({ db }) => {
    await insertFixtureMethods(db, DATASET, METHODS, 'validation');
    await insertFixtureMethods(db, 'fixture-critic-empty', [OWN_ADD], 'train');
  },
});

const args = (critic: string, ...extra: string[]) => [
  'calibrate',
  'critic',
  '--critic',
  critic,
  '--dataset',
  DATASET,
  '--episodes',
  '6',
  '--min-episodes',
  '6',
  ...extra,
];

describe('pau calibrate critic (scripted critic on recorded episodes)', () => {
  it('records a scripted benchmark run on the split', async () => {
    const handle = await startBenchmark(stack.client, RUN_ID, {
      dataset: DATASET,
      split: 'validation',
      models: ['mock-steps', 'mock-oracle'],
      settings: ['interactive'],
      samples: 1,
    });
    const result = await handle.result();
    expect(result.totals).toMatchObject({ done: 6, failed: 0 });
  }, 240_000);

  it('the scripted critic qualifies: new steps above repeats and uninformative calls; the card is stored and reused', async () => {
    const r = await runCli(args('mock-oracle'), {}, 180_000);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(
      /critic card: critic mock-oracle QUALIFIED \(fixture-critic-card\/validation, benchmark runs, 6 episodes, \d+ pairs; prompt critic-v1/,
    );
    expect(r.stdout).toMatch(/pass {2}new step above the other by 0\.2 \(share of pairs, episodes weighted equally\): 100%/);
    expect(r.stdout).toContain('3 of 6 episodes recorded no repeated or uninformative step: the card appended a repeat of their first call');
    expect(r.code).toBe(0);
    await maybeRecordHistory(stack.client.workflow.getHandle(criticCardWorkflowId('mock-oracle', DATASET, 'validation', undefined)), 'criticCard.json');

    const rows = await stack.db.select().from(criticCards).where(eq(criticCards.criticModel, 'mock-oracle'));
    expect(rows).toHaveLength(1);
    const card = rows[0]!.card!;
    expect(rows[0]!.qualified).toBe(true);
    expect(card.runId).toBeNull();
    expect(card.criticParams).toEqual({ temperature: 0, max_tokens: 256 });
    expect(card.episodes).toHaveLength(6);
    // mock-steps episodes have pairs of their own; mock-oracle episodes (one step, every probe) get the appended repeat.
    for (const e of card.episodes) {
      expect(e.constructed).toBe(e.episodeId.includes('mock-oracle'));
      if (e.constructed) expect(e.steps.at(-1)).toMatchObject({ class: 'repeated', reward: 0, constructed: true });
    }
    // The scripted rule's rewards by class: a new value 0.9 (a new exception 0.6), an uninformative call 0.2, a repeat 0.
    const sign = card.episodes.find((e) => e.methodId === OWN_SIGN.id && e.episodeId.includes('mock-steps'))!;
    expect(sign.steps.slice(0, 4).map((s) => [s.class, s.reward])).toEqual([
      ['new', 0.9],
      ['uninformative', 0.2],
      ['new', 0.9],
      ['new', 0.9],
    ]);
    expect(sign.steps.slice(4).every((s) => s.class === 'repeated' && s.reward === 0)).toBe(true);
    const raises = card.episodes.find((e) => e.methodId === OWN_RAISES.id && e.episodeId.includes('mock-steps'))!;
    expect(raises.steps[1]).toMatchObject({ class: 'new', reward: 0.6 }); // safe_div(1, 0) raised
    expect(card.measures.meanByClass.repeated).toBeCloseTo(0);
    expect(card.measures.meanByClass.uninformative).toBeCloseTo(0.2);
    expect(card.measures.unparsable).toBe(0);

    // Every critic call went through the llm_calls cache (deterministic requests: an oracle episode's appended
    // repeat is the very request of the steps episode's first repeat, so it is sent once); a second run asks nothing again.
    const calls = async () => (await stack.db.select({ k: llmCalls.callKey }).from(llmCalls).where(like(llmCalls.callKey, 'critic-card/mock-oracle/%'))).length;
    const before = await calls();
    expect(before).toBe(card.episodes.reduce((a, e) => a + e.steps.length, 0) - METHODS.length);
    const again = await runCli(args('mock-oracle'), {}, 120_000);
    expect(again.code).toBe(0);
    expect(await stack.db.select().from(criticCards).where(eq(criticCards.criticModel, 'mock-oracle'))).toHaveLength(1);
    expect(await calls()).toBe(before);
  }, 300_000);

  it("--run rates that run's episodes (its dataset and split) under a card of its own", async () => {
    const r = await runCli(['calibrate', 'critic', '--critic', 'mock-oracle', '--run', RUN_ID, '--episodes', '6', '--min-episodes', '6'], {}, 180_000);
    expect(r.stdout).toContain(`critic card: critic mock-oracle QUALIFIED (fixture-critic-card/validation, run ${RUN_ID}, 6 episodes`);
    expect(r.code).toBe(0);
    const rows = await stack.db.select().from(criticCards).where(eq(criticCards.criticModel, 'mock-oracle'));
    expect(rows.map((x) => x.runId).sort()).toEqual([RUN_ID, null].sort());
  }, 240_000);

  it('--format verify: the yes/no critic under a card of its own (prompt critic-v2/verify), each step rated 1 or 0 by its word', async () => {
    const r = await runCli([...args('mock-oracle'), '--format', 'verify'], {}, 180_000);
    expect(r.stdout, r.stderr).toMatch(
      /critic card: critic mock-oracle QUALIFIED \(fixture-critic-card\/validation, benchmark runs, 6 episodes, \d+ pairs; prompt critic-v2\/verify/,
    );
    expect(r.code).toBe(0);
    const [row] = await stack.db
      .select()
      .from(criticCards)
      .where(and(eq(criticCards.criticModel, 'mock-oracle'), eq(criticCards.promptVersion, 'critic-v2/verify')));
    expect(row!.criticParams).toEqual({ temperature: 0, max_tokens: 2, logprobs: true, top_logprobs: 10 });
    // The scripted endpoint returns no logprobs: the word is read (yes 1 for a new value or error, no 0 otherwise).
    const rewards = row!.card!.episodes.flatMap((e) => e.steps.map((st) => [st.class, st.reward] as const));
    expect(rewards.every(([k, v]) => (k === 'new' ? v === 1 : v === 0))).toBe(true);
  }, 240_000);

  it('--skip N rates the episodes after the first N of the pick order, under the same card key', async () => {
    const cli = (...extra: string[]) =>
      runCli(
        ['calibrate', 'critic', '--critic', 'mock-oracle', '--format', 'verify', '--run', RUN_ID, '--episodes', '3', '--min-episodes', '3', ...extra],
        {},
        180_000,
      );
    expect((await cli()).code).toBe(0);
    const second = await cli('--skip', '3');
    expect(second.stdout).toContain(`critic card of mock-oracle (verify) on 3 recorded episodes of run ${RUN_ID} after the first 3`);
    expect(second.code).toBe(0);
    const [row] = await stack.db
      .select()
      .from(criticCards)
      .where(and(eq(criticCards.criticModel, 'mock-oracle'), eq(criticCards.promptVersion, 'critic-v2/verify'), eq(criticCards.runId, RUN_ID)));
    // The row holds both picks; the card is the second's 3 episodes, none of them the first's.
    expect(Object.keys(row!.episodes)).toHaveLength(6);
    expect(row!.card!.episodes).toHaveLength(3);
  }, 240_000);

  it('the scripted null critic (no reward line) is not qualified: exit 1, failed checks named', async () => {
    const r = await runCli(args('mock-null'), {}, 180_000);
    expect(r.stdout).toMatch(/critic card: critic mock-null NOT QUALIFIED/);
    expect(r.stdout).toMatch(/FAIL {2}rated steps with a parsable reward \(share\): 0% \(needs >= 90%\)/);
    expect(r.code).toBe(1);
  }, 240_000);

  it('a split without recorded episodes is a clear error (episodes of its methods recorded on another dataset do not count)', async () => {
    const r = await runCli(['calibrate', 'critic', '--critic', 'mock-oracle', '--dataset', 'fixture-critic-empty', '--split', 'train'], {}, 120_000);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^\ncritic card failed: CriticCardNoEpisodes: /m);
    expect(r.stderr).toContain('fixture-critic-empty/train has no completed interactive benchmark episode');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  }, 120_000);

  it("a GRPO report shows its critic's card, or the command that computes it", async () => {
    const grpo = (id: string, critic: string) =>
      stack.db.insert(runs).values({
        id,
        kind: 'grpo',
        status: 'completed',
        config: grpoConfig({ critic, dataset: DATASET }),
        summary: { epochs: [] },
      });
    await grpo('grpo-critic-carded', 'mock-oracle');
    await grpo('grpo-critic-uncarded', 'mock-random');
    const carded = (await loadGrpoReport(stack.db, 'grpo-critic-carded'))!;
    expect(carded.criticCard?.status).toBe('qualified');
    expect(renderGrpoReport(carded)).toMatch(/<div class="card ok"><h2>Critic card<\/h2><p>critic mock-oracle QUALIFIED \(fixture-critic-card\/validation/);
    expect(renderGrpoText(carded)).toMatch(/^critic card: critic mock-oracle QUALIFIED/);
    const uncarded = (await loadGrpoReport(stack.db, 'grpo-critic-uncarded'))!;
    expect(uncarded.criticCard).toEqual({
      status: 'missing',
      criticModel: 'mock-random',
      command: `npm run pau -- calibrate critic --critic mock-random --dataset ${DATASET}`,
    });
    expect(renderGrpoReport(uncarded)).toContain(`Compute it with <code>npm run pau -- calibrate critic --critic mock-random --dataset ${DATASET}</code>`);
  });
});
