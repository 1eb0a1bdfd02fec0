// The on-policy critic card on the real stack: `pau calibrate critic --on-policy` rolls out the scripted policy
// (mock-steps: one probe per turn, then repeats) on 3 fixture methods x G 2 as a GRPO first epoch, recorded once
// under a run of kind critic-card; the execution critic, the free rule and the scripted critic (mock-oracle, which
// reads no gold description) each rate every rollout with their own and another method's privileged information;
// the cards are printed side by side and stored. A second card with another format reuses the rollouts; a method
// whose code fails in the sandbox leaves its steps unrated by the execution critic, with the reason, counted. A GRPO
// report shows its critic's on-policy card, or the command; bad input exits 2.
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { loadGrpoReport } from '../../db/queries/grpoReportData';
import { onPolicyCriticCards } from '../../db/schema/criticCards';
import { methods } from '../../db/schema/datasets';
import { episodes, runs } from '../../db/schema/runs';
import { onPolicyCardWorkflowId, onPolicyCritics } from '../../domain/training/onPolicyCard';
import { renderGrpoReport, renderGrpoText } from '../../domain/trainingReport/grpoReport';
import { ADD, type FixtureMethod, insertFixtureMethods, RAISES } from '../fixtures/episodeMethods';
import { runCli } from '../helpers/cli';
import { maybeRecordHistory } from '../helpers/histories';
import { useStack } from '../helpers/stack';
import { grpoConfig } from '../fixtures/grpoConfig';

const DATASET = 'fixture-on-policy-card';
/** Probes 5 and 7 both return 1: the second is an uninformative call. */
const SIGN: FixtureMethod = {
  id: 'fixture/on_policy_sign',
  entryPoint: 'sign',
  signature: 'def sign(n):',
  code: 'def sign(n):\n    return (n > 0) - (n < 0)\n',
  gold: 'Returns 1 for a positive n, -1 for a negative n and 0 for zero.',
  probes: ['5', '7', '-2', '0'],
};
const METHODS = [ADD, RAISES, SIGN];

const stack = useStack({
  workers: ['pau', 'pau-sandbox'],
  setup: async ({ db }) => {
    await insertFixtureMethods(db, DATASET, METHODS, 'train');
  },
});

const card = (...extra: string[]) =>
  runCli(
    [
      'calibrate',
      'critic',
      '--on-policy',
      '--policy',
      'mock-steps',
      '--methods',
      '3',
      '--group',
      '2',
      '--dataset',
      DATASET,
      '--judge-model',
      'mock-oracle',
      '--critic',
      'mock-oracle',
      '--min-groups',
      '1',
      ...extra,
    ],
    {},
    400_000,
  );

/** The table row of a critic: its cells. */
const rowOf = (stdout: string, label: string) =>
  stdout
    .split('\n')
    .find((l) => l.startsWith(`${label}  `))
    ?.split(/\s{2,}/);

let runId = '';

describe('pau calibrate critic --on-policy (scripted policy and critic on fixture methods)', () => {
  it('rolls the policy out once, rates every rollout with each critic, prints the cards side by side and stores them', async () => {
    const r = await card();
    expect(r.stderr).toBe('');
    runId = /run (critic-card-[0-9a-f]{12})\)/.exec(r.stdout)?.[1] ?? '';
    expect(runId, r.stdout).not.toBe('');
    expect(r.stdout).toContain(
      'on-policy critic card of exec, free-rule, mock-oracle (rubric) on 3 methods x 2 rollouts of mock-steps (fixture-on-policy-card/train, seed 0, judge mock-oracle;',
    );
    expect(r.stdout).toMatch(/6 rollouts of 3 methods, 6 ended and rated \(0 recorded before; rollouts [\d.]+ (s|min)/);
    // Side by side: one row per critic, each with its pass time.
    expect(r.stdout).toMatch(/^critic\s+pass time\s+AUROC\s+privilege moved \/ mean \|Δ\|\s+rho \(groups\)\s+repeat <= new\s+rated\s+verdict$/m);
    const exec = rowOf(r.stdout, 'exec')!;
    const rule = rowOf(r.stdout, 'free-rule')!;
    const scripted = rowOf(r.stdout, 'mock-oracle (rubric)')!;
    for (const row of [exec, rule, scripted]) expect(row[1]).toMatch(/^[\d.]+ s$|min/);
    // The execution critic against its own label: above chance. Its privilege is the code: another method's
    // code rates the same calls differently.
    expect(Number(exec[2])).toBeGreaterThan(0.5);
    expect(exec[3]).not.toMatch(/^0% /);
    // The free rule and the scripted critic (the same rule, asked as a model) read no gold description: nothing moves.
    expect(rule[3]).toBe('0% / 0.00');
    expect(scripted[3]).toBe('0% / 0.00');
    expect(rule[5]).toBe('100%'); // a repeat scores 0, below any new step
    // mock-steps samples the same rollout whatever the seed: no group has spread in code match.
    expect(r.stdout).toContain('0 groups with spread in code match, 3 without (skipped)');
    expect(r.stdout).toMatch(
      /critic card \(on the policy's rollouts\): critic mock-oracle \(rubric\) NOT QUALIFIED \(policy mock-steps, fixture-on-policy-card\/train, 3 methods x 2 rollouts, 6 rated; run critic-card-[0-9a-f]{12}; critic-v1;/,
    );
    expect(r.stdout).toMatch(/ {2}FAIL {2}privilege used: steps rated 0\.1 or more apart with another method's information \(share\): 0% \(needs >= 25%\)/);
    expect(r.code).toBe(1); // the named critic did not qualify

    const critics = onPolicyCritics(['mock-oracle'], ['rubric']);
    await maybeRecordHistory(stack.client.workflow.getHandle(onPolicyCardWorkflowId(runId, critics)), 'criticCard-on-policy.json');

    // The rollouts: a GRPO first epoch's episodes under their own run.
    const [run] = await stack.db.select().from(runs).where(eq(runs.id, runId));
    expect(run).toMatchObject({ kind: 'critic-card', status: 'completed' });
    expect(run!.config).toMatchObject({
      base: 'mock-steps',
      methodsPerEpoch: 3,
      group: 2,
      judgeModel: 'mock-oracle',
      sampling: { top_k: 0, top_p: 1, min_p: 0 },
    });
    const eps = await stack.db.select().from(episodes).where(eq(episodes.runId, runId));
    expect(eps).toHaveLength(6);
    expect(eps.map((e) => e.id).sort()[0]).toBe(`${runId}/${ADD.id}/mock-steps/interactive/0`);

    // One stored card per critic, each with every rollout rated, own and swapped.
    const rows = await stack.db.select().from(onPolicyCriticCards).where(eq(onPolicyCriticCards.runId, runId));
    expect(rows.map((x) => x.critic).sort()).toEqual(['exec', 'free-rule', 'mock-oracle']);
    for (const row of rows) {
      expect(row).toMatchObject({ status: 'completed', policy: 'mock-steps', dataset: DATASET, split: 'train' });
      expect(Object.keys(row.rollouts)).toHaveLength(6);
      expect(row.card!.qualified).toBe(row.qualified);
      expect(row.card!.measures.rollouts).toBe(6);
    }
    const execRow = rows.find((x) => x.critic === 'exec')!;
    const steps = Object.values(execRow.rollouts).flatMap((x) => x.steps);
    // Every step of the three methods was rated by running it; a repeat ruled nothing out.
    expect(steps.every((st) => st.own !== null && typeof st.ruledOut === 'number')).toBe(true);
    expect(steps.some((st) => st.ruledOut! > 0)).toBe(true);
    expect(steps.some((st) => st.ruledOut === 0)).toBe(true);
    const byMethod = Object.values(execRow.rollouts).map((x) => [x.methodId, x.swapMethodId]);
    expect(new Set(byMethod.map(([, swap]) => swap))).toEqual(new Set(METHODS.map((m) => m.id)));
    const scriptedRow = rows.find((x) => x.critic === 'mock-oracle')!;
    expect(scriptedRow).toMatchObject({ format: 'rubric', promptVersion: 'critic-v1', criticParams: { temperature: 0, max_tokens: 256 } });
    // The scripted critic answers with the free rule: the same ratings, step by step.
    const ruleRow = rows.find((x) => x.critic === 'free-rule')!;
    for (const [id, x] of Object.entries(ruleRow.rollouts)) expect(scriptedRow.rollouts[id]!.steps.map((st) => st.own)).toEqual(x.steps.map((st) => st.own));
  }, 600_000);

  it('a second card reuses the rollouts; a method whose code fails in the sandbox leaves its steps unrated by exec, with the reason, counted', async () => {
    // The code now fails on import: the execution critic cannot run it (nor generate its alternatives).
    await stack.db
      .update(methods)
      .set({ code: `LIMIT = UNDEFINED_LIMIT + 1\n\n${SIGN.code}` })
      .where(eq(methods.id, SIGN.id));
    const r = await card('--format', 'verify', '--force');
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain(`run ${runId})`);
    expect(r.stdout).toMatch(/6 rollouts of 3 methods, 6 ended and rated \(6 recorded before;/);
    expect(await stack.db.select().from(episodes).where(eq(episodes.runId, runId))).toHaveLength(6);
    expect(rowOf(r.stdout, 'mock-oracle (verify)')).toBeDefined();
    // The sign rollouts' steps: unrated by exec, the reason named and counted, and left without a label on every card.
    expect(r.stdout).toMatch(/ {2}unrated steps \d+ \(\d+: the method's code fails on import: NameError: name 'UNDEFINED_LIMIT' is not defined\)/);
    expect(r.stdout).toMatch(/ {2}steps without an execution label \d+ \(\d+: the method's code fails on import: NameError/);
    const [execRow] = await stack.db
      .select()
      .from(onPolicyCriticCards)
      .where(and(eq(onPolicyCriticCards.runId, runId), eq(onPolicyCriticCards.critic, 'exec')));
    const sign = Object.values(execRow!.rollouts).filter((x) => x.methodId === SIGN.id);
    expect(sign).toHaveLength(2);
    for (const x of sign)
      for (const st of x.steps) expect(st).toMatchObject({ own: null, ruledOut: null, unrated: expect.stringMatching(/^the method's code fails on import/) });
    expect(execRow!.card!.measures.unrated).toBe(sign.reduce((a, x) => a + x.steps.length, 0));
    const verify = await stack.db
      .select()
      .from(onPolicyCriticCards)
      .where(and(eq(onPolicyCriticCards.runId, runId), eq(onPolicyCriticCards.critic, 'mock-oracle'), eq(onPolicyCriticCards.format, 'verify')));
    expect(verify).toHaveLength(1);
    await stack.db.update(methods).set({ code: SIGN.code }).where(eq(methods.id, SIGN.id));
  }, 600_000);

  it("a GRPO report shows its critic's on-policy card on its policy, else the existing line or the command", async () => {
    const grpo = (id: string, base: string, critic: string) =>
      stack.db.insert(runs).values({
        id,
        kind: 'grpo',
        status: 'completed',
        config: grpoConfig({ base, critic, criticFormat: 'rubric', dataset: DATASET, methodsPerEpoch: 3 }),
        summary: { epochs: [] },
      });
    await grpo('grpo-on-policy-carded', 'mock-steps', 'mock-oracle');
    await grpo('grpo-on-policy-exec-uncarded', 'mock-oracle', 'exec');
    await grpo('grpo-on-policy-recorded-line', 'mock-oracle', 'mock-random');
    const carded = (await loadGrpoReport(stack.db, 'grpo-on-policy-carded'))!;
    expect(carded.criticCard?.status).toBe('on-policy');
    expect(renderGrpoText(carded)).toMatch(/^critic card \(on the policy's rollouts\): critic mock-oracle \(rubric\) NOT QUALIFIED \(policy mock-steps/m);
    expect(renderGrpoReport(carded)).toMatch(
      /<div class="card bad"><h2>Critic card<\/h2><p>\(on the policy&#39;s rollouts\): critic mock-oracle \(rubric\) NOT QUALIFIED/,
    );
    // The execution critic has no card on this policy: the command that computes it.
    const exec = (await loadGrpoReport(stack.db, 'grpo-on-policy-exec-uncarded'))!;
    expect(exec.criticCard).toEqual({
      status: 'missing',
      criticModel: 'exec',
      command: `npm run pau -- calibrate critic --on-policy --policy mock-oracle --critic exec --dataset ${DATASET}`,
    });
    // A model critic without an on-policy card keeps the line of its card on recorded episodes (here: none).
    const other = (await loadGrpoReport(stack.db, 'grpo-on-policy-recorded-line'))!;
    expect(other.criticCard).toEqual({
      status: 'missing',
      criticModel: 'mock-random',
      command: `npm run pau -- calibrate critic --critic mock-random --dataset ${DATASET}`,
    });
  });

  it('refuses a critic that is neither a model nor exec, a card of one method, and exec without --on-policy (exit 2)', async () => {
    const bad = await card('--critic', 'no-such-critic');
    expect(bad.code, bad.stdout + bad.stderr).toBe(2);
    expect(bad.stderr).toContain('--critic no-such-critic is neither `exec` (the execution critic) nor a known model');
    expect(bad.stdout).not.toContain('on-policy critic card of');
    const one = await card('--methods', '1');
    expect(one.code).toBe(2);
    expect(one.stderr).toMatch(/--methods: must be a whole number from 2 to 500, not 1/);
    const recorded = await runCli(['calibrate', 'critic', '--critic', 'exec', '--dataset', DATASET]);
    expect(recorded.code).toBe(2);
    expect(recorded.stderr).toContain('the execution critic has no card on recorded episodes');
  }, 120_000);
});
