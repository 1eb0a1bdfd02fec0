// Training entries refuse the test split (exit 2, a message saying why and how to override) unless
// --allow-test-split: sft build, grpo train, and sft train on a data set built from the test split. The real
// CLI as a user runs it, against the test stack's Postgres (no workflow is started by a refusal).
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { runs } from '../../db/schema/runs';
import { sftDatasets } from '../../db/schema/training';
import { runCli } from '../helpers/cli';
import { ADD, insertFixtureMethods, REVERSE } from '../fixtures/episodeMethods';
import { useStack } from '../helpers/stack';

const stack = useStack({
  setup: async ({ db }) => {
    await insertFixtureMethods(db, 'fixture-split', [ADD], 'test');
    await insertFixtureMethods(db, 'fixture-split', [REVERSE], 'train');
    await db.insert(runs).values({ id: 'bench-sft-from-test', kind: 'benchmark', status: 'completed', config: {} }).onConflictDoNothing();
    await db
      .insert(sftDatasets)
      .values({
        name: 'from-test',
        teacher: 'mock-oracle',
        judgeModel: 'mock-oracle',
        runId: 'bench-sft-from-test',
        config: {
          name: 'from-test',
          dataset: 'pau-mini',
          split: 'test',
          teacher: 'mock-oracle',
          judgeModel: 'mock-oracle',
          settings: ['interactive'],
          samples: 1,
          minScore: 4,
          minCodeMatch: 0.8,
          dropContradicting: true,
        },
      })
      .onConflictDoNothing();
  },
});

describe('training on the test split', () => {
  it.each([
    ['sft build', ['sft', 'build', '--teacher', 'mock-oracle', '--split', 'test']],
    ['grpo train', ['grpo', 'train', '--base', 'local/smollm2-135m', '--split', 'test']],
    ['sft train', ['sft', 'train', '--data', 'from-test', '--base', 'local/smollm2-135m', '--no-eval']],
  ])('%s is refused with exit 2 unless --allow-test-split', async (_name, args) => {
    const r = await runCli(args);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toMatch(/on the test split is refused/);
    expect(r.stderr).toMatch(/--allow-test-split/);
    expect(r.stdout).not.toMatch(/workflow:/);
  });

  it('grpo train --methods goes through the same check: a test-split method is refused (exit 2), as is a method of no split asked for', async () => {
    const base = ['grpo', 'train', '--base', 'local/smollm2-135m', '--dataset', 'fixture-split', '--judge-model', 'mock-oracle', '--critic', 'mock-oracle'];
    const onTest = await runCli([...base, '--methods', `${REVERSE.id},${ADD.id}`]);
    expect(onTest.code, onTest.stdout + onTest.stderr).toBe(2);
    expect(onTest.stderr).toContain(`grpo train (--methods ${ADD.id}) on the test split is refused`);
    expect(onTest.stdout).not.toMatch(/workflow:/);
    const unknown = await runCli([...base, '--methods', 'fixture/nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('fixture/nope is not a method of the data set fixture-split');
    // the same methods with --allow-test-split start the run
    const allowed = await runCli([...base, '--methods', `${REVERSE.id},${ADD.id}`, '--allow-test-split', '--detach', '--run-id', 'split-methods-allowed']);
    expect(allowed.code, allowed.stdout + allowed.stderr).toBe(0);
    expect(allowed.stdout).toContain('max_length 4096');
    await stack.client.workflow.getHandle('grpo/split-methods-allowed').terminate('test: started, not run');
  });

  it('bench run --methods and grpo train --eval-methods name methods of their own split (exit 2 otherwise); in-split ones run as named', async () => {
    const bench = ['bench', 'run', '--dataset', 'fixture-split', '--split', 'test', '--models', 'mock-oracle', '--settings', 'interactive', '--judge', 'off'];
    const elsewhere = await runCli([...bench, '--methods', `${ADD.id},${REVERSE.id}`]);
    expect(elsewhere.code, elsewhere.stdout + elsewhere.stderr).toBe(2);
    expect(elsewhere.stderr).toContain(`bench run: --methods ${REVERSE.id} (train) is not in the test split of fixture-split (--split test)`);
    expect(elsewhere.stdout).not.toMatch(/workflow:/);
    const started = await runCli([...bench, '--methods', ADD.id, '--detach', '--run-id', 'split-bench-methods']);
    expect(started.code, started.stdout + started.stderr).toBe(0);
    const [run] = await stack.db.select().from(runs).where(eq(runs.id, 'split-bench-methods'));
    expect((run!.config as { methodIds?: string[] }).methodIds).toEqual([ADD.id]);
    await stack.client.workflow.getHandle(started.stdout.match(/workflow: (\S+)/)![1]!).terminate('test: started, not run');

    const grpo = ['grpo', 'train', '--base', 'local/smollm2-135m', '--dataset', 'fixture-split', '--judge-model', 'mock-oracle', '--critic', 'mock-oracle'];
    const evalElsewhere = await runCli([...grpo, '--eval-split', 'test', '--eval-methods', REVERSE.id]);
    expect(evalElsewhere.code, evalElsewhere.stdout + evalElsewhere.stderr).toBe(2);
    expect(evalElsewhere.stderr).toContain(`grpo train (--eval-methods): --methods ${REVERSE.id} (train) is not in the test split`);
  });

  it('--allow-test-split lets it through: the build starts', async () => {
    const r = await runCli(['sft', 'build', '--teacher', 'mock-oracle', '--split', 'test', '--allow-test-split', '--name', 'on-test', '--detach']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/workflow: /);
    await stack.client.workflow.getHandle(r.stdout.match(/workflow: (\S+)/)![1]!).terminate('test: started, not run');
  });
});
