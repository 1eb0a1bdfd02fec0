// The execution critic on the real sandbox and Postgres: `criticRollout` with critic `exec` rates a scripted
// episode of safe_div (a repeated call earns 0, a call that rules out a mutant earns more, a rejected call 0),
// writes the ratings onto the steps, and a second rating runs nothing (the step cache); a method whose code
// fails on import is unrated with the reason; `grpo train` lets `exec` through and refuses a critic that is
// neither a model nor `exec` (exit 2).
import { and, eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import type { ModelEndpoints } from '../../activities/llm/endpoints';
import { closeSharedSandboxPool } from '../../activities/sandbox/index';
import { execCriticRatings } from '../../activities/training/execCritic';
import { createGrpoActivities } from '../../activities/training/grpo';
import { episodes, runs, steps } from '../../db/schema/runs';
import { execCriticSteps } from '../../db/schema/training';
import type { StepRow } from '../../domain/episode/stepRecord';
import { EXEC_CRITIC } from '../../domain/training/execCritic';
import { criticUnratedFigures } from '../../domain/training/grpo';
import { explorationSteps } from '../../domain/training/grpoRollouts';
import { fixtureMethod, insertFixtureMethods, RAISES } from '../fixtures/episodeMethods';
import { runCli } from '../helpers/cli';
import { useStack } from '../helpers/stack';

const DATASET = 'fixture-exec-critic';
/** Its module raises before `half` exists: every call of it, and of every mutant, is the same NameError. */
const BROKEN = fixtureMethod({
  id: 'fixture/broken_half',
  entryPoint: 'half',
  code: 'LIMIT = UNDEFINED_LIMIT + 1\n\ndef half(n):\n    return n // 2\n',
  gold: 'Returns n // 2.',
  probes: ['4'],
});
const RUN_ID = 'exec-critic-rollouts';

const stack = useStack({
  setup: async ({ db }) => {
    await insertFixtureMethods(db, DATASET, [RAISES, BROKEN], 'train');
    await db.insert(runs).values({ id: RUN_ID, kind: 'grpo', status: 'running', config: {} }).onConflictDoNothing();
  },
});

afterAll(async () => {
  await closeSharedSandboxPool();
});

// The exec critic makes no model call: no endpoint is ever asked for.
const noEndpoints = {} as ModelEndpoints;
const activities = () => createGrpoActivities(() => stack.db, noEndpoints);

type Turn = { ran?: [string, string, boolean][]; rejected?: string[]; submit?: boolean };

/** An episode whose assistant steps make these calls: [arguments, what came back, returned (false: raised)]. */
async function scriptedEpisode(methodId: string, entry: string, sample: number, turns: Turn[]): Promise<string> {
  const id = `${RUN_ID}/${methodId}/policy/interactive/${sample}`;
  await stack.db.insert(episodes).values({ id, runId: RUN_ID, methodId, model: 'policy', setting: 'interactive', sample, status: 'completed' });
  const rows: StepRow[] = [
    { idx: 0, kind: 'system', agentMessage: { role: 'system', content: 'explore' } },
    { idx: 1, kind: 'user', agentMessage: { role: 'user', content: `def ${entry}(...)` } },
  ];
  for (const t of turns) {
    rows.push({ idx: rows.length, kind: 'assistant', agentMessage: { role: 'assistant', content: null } });
    for (const [args, text, ok] of t.ran ?? []) {
      rows.push({
        idx: rows.length,
        kind: 'call',
        call: { arguments: args, label: `${entry}(${args})` },
        observation: {
          text,
          executed: true,
          result: ok ? { ok: true, value: null, repr: text, stdout: '', ms: 1 } : { ok: false, error: { type: text, message: '' }, stdout: '', ms: 1 },
        },
      });
    }
    for (const args of t.rejected ?? []) {
      rows.push({
        idx: rows.length,
        kind: 'call',
        call: { arguments: args, label: `${entry}(${args})` },
        observation: { text: 'over the call budget', executed: false },
      });
    }
    if (t.submit) rows.push({ idx: rows.length, kind: 'submit', call: { description: 'divides' }, observation: { text: 'submitted' } });
  }
  await stack.db.insert(steps).values(rows.map((r) => ({ ...r, episodeId: id })));
  return id;
}

async function stepRows(episodeId: string) {
  return stack.db
    .select({ idx: steps.idx, reward: steps.criticReward, rationale: steps.criticRationale })
    .from(steps)
    .where(and(eq(steps.episodeId, episodeId), eq(steps.kind, 'assistant')))
    .orderBy(steps.idx);
}

describe('the execution critic (`--critic exec`) on the real sandbox', () => {
  it('rates each step by what it rules out and first covers: a repeat earns 0, a call that rules out a mutant earns more', async () => {
    const episodeId = await scriptedEpisode(RAISES.id, 'safe_div', 0, [
      { ran: [['7, 2', '3', true]] },
      { ran: [['7, 2', '3', true]] }, // the same call again
      { ran: [['1, 0', 'ValueError', false]] }, // b == 0: the branch the first call did not take
      { rejected: ['1, 2, 3'] }, // never run
      { submit: true },
    ]);
    const started = Date.now();
    const r = await activities().criticRollout({ episodeId, methodId: RAISES.id, critic: EXEC_CRITIC });
    const firstMs = Date.now() - started;
    expect(r).toMatchObject({ episodeId, rated: 4, unparsable: 0 });
    expect(r.unrated).toBeUndefined();
    const [first, repeat, zero, rejected, submit] = r.rewards;
    expect(first).toBeGreaterThan(0);
    expect(repeat).toBe(0);
    expect(zero).toBeGreaterThan(0);
    expect(rejected).toBe(0);
    expect(submit).toBeNull();

    // The ratings are on the assistant steps, with what each ruled out and covered.
    const rows = await stepRows(episodeId);
    expect(rows.map((s) => s.reward)).toEqual(r.rewards);
    expect(rows[0]!.rationale).toMatch(/^exec-v1: reward 0\.\d+: ruled out [1-9]\d* of \d+ surviving alternatives/);
    expect(rows[1]!.rationale).toMatch(/^exec-v1: reward 0: ruled out 0 of \d+ .*first covered 0 of \d+ statements and 0 of \d+ branch arcs$/);
    // 1 // 0 under a mutant that tests b == 1 (or b != 0) raises something else than ValueError, or returns.
    const ruledByZero = Number(/ruled out (\d+) of/.exec(rows[2]!.rationale ?? '')?.[1]);
    expect(ruledByZero).toBeGreaterThan(0);
    expect(rows[2]!.rationale).toMatch(/first covered [1-9]\d* of \d+ statements/); // the raise
    expect(rows[4]!.rationale).toBeNull();

    // Rated again (a retry, the critic card): every step from the cache, nothing run.
    const cached = await stack.db.select().from(execCriticSteps).where(eq(execCriticSteps.methodId, RAISES.id));
    expect(cached.length).toBeGreaterThanOrEqual(4);
    const started2 = Date.now();
    const again = await activities().criticRollout({ episodeId, methodId: RAISES.id, critic: EXEC_CRITIC });
    const againMs = Date.now() - started2;
    expect(again.rewards).toEqual(r.rewards);
    const ex = explorationSteps(
      (await stack.db.select().from(steps).where(eq(steps.episodeId, episodeId))).sort((a, b) => a.idx - b.idx),
      'safe_div',
    );
    const fromCache = await execCriticRatings(
      {
        db: () => stack.db,
        runBatch: () => {
          throw new Error('the sandbox was asked although every step is cached');
        },
      },
      { methodId: RAISES.id, steps: ex.map((s) => s.ran) },
    );
    expect(fromCache.slice(0, 4).map((s) => s.reward)).toEqual(r.rewards.slice(0, 4));
    // Another rollout of the same method, its pool now started: what rating one costs in a GRPO epoch.
    const other = await scriptedEpisode(RAISES.id, 'safe_div', 2, [
      { ran: [['9, 3', '3', true]] },
      { ran: [['-7, 2', '-4', true]] },
      { ran: [['0, 5', '0', true]] },
      { ran: [['5, 0', 'ValueError', false]] },
      { submit: true },
    ]);
    const started3 = Date.now();
    const third = await activities().criticRollout({ episodeId: other, methodId: RAISES.id, critic: EXEC_CRITIC });
    const warmMs = Date.now() - started3;
    expect(third.rewards.slice(0, 4).every((x) => x !== null && x >= 0 && x <= 1)).toBe(true);
    console.log(
      `exec critic, one rollout of 5 steps: ${firstMs} ms from the sandbox (its pool starting), ${againMs} ms from the cache, ${warmMs} ms another rollout`,
    );
  }, 120_000);

  it('a method whose code fails on import is unrated, with the reason on every step and in the result', async () => {
    const episodeId = await scriptedEpisode(BROKEN.id, 'half', 1, [
      { ran: [['4', 'NameError', false]] },
      { ran: [['5', 'NameError', false]] },
      { submit: true },
    ]);
    const r = await activities().criticRollout({ episodeId, methodId: BROKEN.id, critic: EXEC_CRITIC });
    expect(r.rewards).toEqual([null, null, null]);
    expect(r).toMatchObject({ rated: 2, unrated: 2 });
    expect(r.unratedReason).toBe("the method's code fails on import: NameError: name 'UNDEFINED_LIMIT' is not defined");
    const rows = await stepRows(episodeId);
    expect(rows.map((s) => s.reward)).toEqual([null, null, null]);
    expect(rows[0]!.rationale).toBe(`exec-v1: unrated: ${r.unratedReason}`);
    // The epoch's figures count the rollout as unrated, by reason (it trains on the outcome only).
    expect(criticUnratedFigures([r])).toEqual({ criticUnrated: { rollouts: 1, reasons: { [r.unratedReason!]: 1 } } });
  }, 60_000);

  it('grpo train takes `exec` as critic and refuses one that is neither a model nor `exec` (exit 2)', async () => {
    const base = ['grpo', 'train', '--base', 'local/smollm2-135m', '--dataset', DATASET, '--judge-model', 'mock-oracle', '--methods', RAISES.id];
    const bad = await runCli([...base, '--critic', 'no-such-critic']);
    expect(bad.code, bad.stdout + bad.stderr).toBe(2);
    expect(bad.stderr).toContain('--critic no-such-critic is neither `exec` (the execution critic) nor a known model');
    expect(bad.stdout).not.toMatch(/workflow:/);
    const ok = await runCli([...base, '--critic', EXEC_CRITIC, '--detach', '--run-id', 'exec-critic-started']);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toContain('critic exec (execution: the method run in the sandbox)');
    await stack.client.workflow.getHandle('grpo/exec-critic-started').terminate('test: started, not run');
  }, 120_000);
});
