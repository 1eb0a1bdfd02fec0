// Training entries refuse the test split (exit 2, a message saying why and how to override) unless
// --allow-test-split: sft build, grpo train, and sft train on a data set built from the test split. The real
// CLI as a user runs it, against the test stack's Postgres (no workflow is started by a refusal).
import { describe, expect, it } from 'vitest';
import { runs, sftDatasets } from '../../db/schema/index';
import { runCli } from '../helpers/cli';
import { useStack } from '../helpers/stack';

const stack = useStack({
  setup: async ({ db }) => {
    await db.insert(runs).values({ id: 'bench-sft-from-test', kind: 'benchmark', status: 'completed', config: {} }).onConflictDoNothing();
    await db
      .insert(sftDatasets)
      .values({
        name: 'from-test',
        teacher: 'mock-oracle',
        judgeModel: 'mock-oracle',
        runId: 'bench-sft-from-test',
        config: { name: 'from-test', dataset: 'pau-mini', split: 'test' },
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

  it('--allow-test-split lets it through: the build starts', async () => {
    const r = await runCli(['sft', 'build', '--teacher', 'mock-oracle', '--split', 'test', '--allow-test-split', '--name', 'on-test', '--detach']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/workflow: /);
    await stack.client.workflow.getHandle(r.stdout.match(/workflow: (\S+)/)![1]!).terminate('test: started, not run');
  });
});
