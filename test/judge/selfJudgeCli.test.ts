// Self-judging refused by the real `pau` CLI (issue 27, item 4): `bench run`, `grpo train` and `judge --run`
// exit 2 when a judge (or critic) is an agent, its base (a checkpoint's base read from Postgres) or a
// checkpoint of it; `--allow-self-judge` starts the run anyway and records the relation (bench: in the
// run's stored config). No workers: forced runs are started with --detach and terminated.
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { episodes, runs } from '../../db/schema/runs';
import { checkpoints } from '../../db/schema/training';
import { benchWorkflowId } from '../../domain/bench/workflowIds';
import { grpoWorkflowId } from '../../domain/training/grpo';
import { runCli } from '../helpers/cli';
import { ADD, insertFixtureMethods } from '../fixtures/episodeMethods';
import { useStack } from '../helpers/stack';
import { benchmarkConfig } from '../fixtures/runs';

const Q05 = 'local/qwen2.5-coder-0.5b';
const Q15 = 'local/qwen2.5-coder-1.5b';
const DATASET = 'fixture-self-judge';
const TRAIN_RUN = 'self-judge-train';
const CKPT = 'self-judge-ckpt';

const stack = useStack({
  setup: async ({ db }) => {
    await insertFixtureMethods(db, DATASET, [ADD]);
    // A checkpoint trained from the 0.5B, as a training run registers it.
    await db.insert(runs).values({ id: TRAIN_RUN, kind: 'sft', status: 'completed', config: {} }).onConflictDoNothing();
    await db
      .insert(checkpoints)
      .values({ id: CKPT, runId: TRAIN_RUN, epoch: 1, jobId: CKPT, baseModel: Q05, parentId: null, path: '/nonexistent' })
      .onConflictDoNothing();
  },
});

const bench = (...extra: string[]) => runCli(['bench', 'run', '--dataset', DATASET, '--split', 'test', '--settings', 'interactive', '--limit', '1', ...extra]);

async function terminate(workflowId: string): Promise<void> {
  await stack.client.workflow
    .getHandle(workflowId)
    .terminate('test: started only to check the recorded config')
    .catch(() => undefined);
}

describe('bench run', () => {
  it('refuses the agent as its own judge, and the checkpoint judged by its base (exit 2)', async () => {
    const same = await bench('--models', Q05, '--judge-model', Q05);
    expect(same.code).toBe(2);
    expect(same.stderr).toContain(`self-judging refused: ${Q05} (judge) is the agent itself: agent ${Q05}, relation same`);
    expect(same.stderr).toContain('--allow-self-judge');

    const base = await bench('--models', `ckpt:${CKPT}`, '--judge-model', Q05);
    expect(base.code).toBe(2);
    expect(base.stderr).toContain(`${Q05} (judge) is the agent's base model: agent ckpt:${CKPT}, relation base`);

    const unrelated = await bench('--models', Q05, '--judge-model', Q15, '--detach', '--run-id', 'self-judge-unrelated');
    expect(unrelated.stderr).not.toContain('self-judging');
    expect(unrelated.code).toBe(0);
    await terminate(benchWorkflowId('self-judge-unrelated'));
  }, 120_000);

  it('--allow-self-judge starts it and records the relation in the run config', async () => {
    const runId = 'self-judge-forced';
    // (A checkpoint agent cannot be started here: benchStart's startProblem does not resolve `ckpt:` names.)
    const r = await bench('--models', Q05, '--judge-model', Q05, '--allow-self-judge', '--detach', '--run-id', runId);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('SELF-JUDGING forced');
    await terminate(benchWorkflowId(runId));
    const [row] = await stack.db.select({ config: runs.config }).from(runs).where(eq(runs.id, runId));
    expect((row!.config as { selfJudge: unknown }).selfJudge).toEqual([{ agent: Q05, judge: Q05, role: 'judge', relation: 'same' }]);
  }, 120_000);
});

describe('grpo train', () => {
  const grpo = (...extra: string[]) => runCli(['grpo', 'train', '--base', Q05, '--dataset', DATASET, '--epochs', '1', ...extra]);

  it('refuses a judge that is the policy or a checkpoint of it (exit 2); the same-backbone critic is the design, recorded', async () => {
    const judge = await grpo('--critic', 'mock-oracle', '--judge-model', `ckpt:${CKPT}`);
    expect(judge.code).toBe(2);
    expect(judge.stderr).toContain(`ckpt:${CKPT} (judge) is a checkpoint of the agent or of the agent's base: agent ${Q05}, relation checkpoint`);
    const same = await grpo('--judge-model', Q05);
    expect(same.code).toBe(2);
    expect(same.stderr).toContain(`${Q05} (judge) is the agent itself: agent ${Q05}, relation same`);

    // The critic defaults to the policy's base (the paper's frozen same-backbone critic): it rates steps,
    // never the final score, so it runs, and says so (the workflow's config carries the relation).
    const critic = await grpo('--judge-model', 'mock-oracle', '--detach', '--run-id', 'self-judge-grpo-critic');
    expect(critic.code, critic.stderr).toBe(0);
    expect(critic.stdout).toContain(`critic ${Q05}: on the policy's own backbone`);
    expect(critic.stdout).not.toContain('SELF-JUDGING forced');
    await terminate(grpoWorkflowId('self-judge-grpo-critic'));
  }, 120_000);

  it('--allow-self-judge trains with the policy as its own judge and says so', async () => {
    const r = await grpo('--judge-model', Q05, '--allow-self-judge', '--detach', '--run-id', 'self-judge-grpo-forced');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`SELF-JUDGING forced (--allow-self-judge): judge ${Q05} same ${Q05}`);
    await terminate(grpoWorkflowId('self-judge-grpo-forced'));
  }, 120_000);
});

describe('judge --run', () => {
  it("refuses a judge that is one of the run's agents (exit 2)", async () => {
    const runId = 'self-judge-stored';
    await stack.db
      .insert(runs)
      .values({ id: runId, kind: 'benchmark', status: 'completed', config: benchmarkConfig({ models: [`ckpt:${CKPT}`] }) })
      .onConflictDoNothing();
    await stack.db
      .insert(episodes)
      .values({ id: `${runId}/1`, runId, methodId: ADD.id, model: `ckpt:${CKPT}`, setting: 'interactive', status: 'completed', finalDescription: 'Adds.' })
      .onConflictDoNothing();
    const r = await runCli(['judge', '--run', runId, '--judge-model', Q05]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${Q05} (judge) is the agent's base model: agent ckpt:${CKPT}, relation base`);
  }, 120_000);
});
