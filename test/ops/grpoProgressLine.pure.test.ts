// The live line of `pau grpo train` (scripts/client/grpoProgress.ts): the stage the workflow names and how
// long it has lasted, the evaluation's episodes while it runs, and an ETA only once an epoch has ended.
import { describe, expect, it } from 'vitest';
import { runProgressOf } from '../fixtures/runProgress';
import { type GrpoProgressFacts, grpoProgressText } from '../../scripts/client/grpoProgress';

const now = 1_000_000;
const facts: GrpoProgressFacts = {
  runId: 'abl-mix',
  epochs: 2,
  epochsDone: 0,
  perEpoch: 4,
  rollouts: { done: 4, running: 0 },
  elapsedMs: 600_000,
  stage: { epoch: 0, stage: 'update', stageStartedAt: now - 312_000 },
  evaluation: null,
  now,
};
const evalRun = runProgressOf({ runId: 'abl-mix-eval-e1', total: 8, done: 3, running: 2, judging: { judged: 2, completed: 3 } });

describe('the GRPO progress line', () => {
  it('names the stage and its time; no ETA before the first epoch ends', () => {
    expect(grpoProgressText(facts)).toBe('abl-mix: epoch 1/2: update 5:12  rolled out 4/4 (0 running)  elapsed 10:00  ETA ?');
  });

  it("during the evaluation: its run's episodes and judgments", () => {
    const line = grpoProgressText({ ...facts, stage: { epoch: 0, stage: 'evaluate', stageStartedAt: now - 60_000 }, evaluation: evalRun });
    expect(line).toContain('evaluate 1:00 (3/8 episodes, judged 2/3, 2 running)');
  });

  it("the evaluation's counts only in the evaluate stage; without the workflow's answer, no stage", () => {
    expect(grpoProgressText({ ...facts, evaluation: evalRun })).not.toContain('episodes');
    expect(grpoProgressText({ ...facts, stage: null })).toBe('abl-mix: epoch 1/2  rolled out 4/4 (0 running)  elapsed 10:00  ETA ?');
  });

  it("after an epoch: the next epoch's rollouts counted from zero, ETA from the time per epoch", () => {
    const line = grpoProgressText({ ...facts, epochsDone: 1, rollouts: { done: 5, running: 3 }, stage: { epoch: 1, stage: 'rollouts', stageStartedAt: now } });
    expect(line).toBe('abl-mix: epoch 2/2: rollouts 0:00  rolled out 1/4 (3 running)  elapsed 10:00  ETA 10:00');
  });
});
