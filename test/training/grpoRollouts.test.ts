// One GRPO epoch's rollouts alone (workflows/training/grpoRollouts.ts), in a real workflow on the test server
// with stand-in episode children that take a second each: at most the run's rollout window is in flight at
// once (read from the workflow's own history), and the outcomes come back in input order.
import { describe, expect, it } from 'vitest';
import type { EpisodeInput, EpisodeOutcome } from '../../domain/episode/types';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { DEFAULT_ROLLOUT_WINDOW } from '../../domain/training/grpo';
import { usePieceWorker } from '../helpers/pieceWorkers';

const piece = usePieceWorker();

/** The most children the workflow had started and not yet seen end, from its history. */
async function maxInFlight(workflowId: string): Promise<{ max: number; started: number }> {
  let inFlight = 0;
  let max = 0;
  let started = 0;
  for (const e of (await piece.client.workflow.getHandle(workflowId).fetchHistory()).events ?? []) {
    if (e.startChildWorkflowExecutionInitiatedEventAttributes) {
      started++;
      max = Math.max(max, ++inFlight);
    }
    if (e.childWorkflowExecutionCompletedEventAttributes || e.childWorkflowExecutionFailedEventAttributes) inFlight--;
  }
  return { max, started };
}

async function rollouts(count: number, rolloutWindow?: number): Promise<{ outcomes: EpisodeOutcome[]; inputs: EpisodeInput[]; workflowId: string }> {
  const runId = `piece-grpo-${Date.now().toString(36)}-${rolloutWindow ?? 'default'}`;
  const inputs: EpisodeInput[] = Array.from({ length: count }, (_, g) => ({
    runId,
    episodeId: `${runId}/m/policy/interactive/${g}`,
    methodId: 'm',
    model: 'policy',
    setting: 'interactive',
    sample: g,
  }));
  const workflowId = `grpo/${runId}`;
  const outcomes = await piece.client.workflow.execute('rolloutsProbe', {
    taskQueue: TASK_QUEUES.main,
    workflowId,
    args: [{ runId, config: { split: 'train', ...(rolloutWindow ? { rolloutWindow } : {}) }, epoch: 0, policy: 'policy', inputs }],
  });
  return { outcomes: outcomes as EpisodeOutcome[], inputs, workflowId };
}

describe('GRPO rollouts', () => {
  it("run at most the config's rollout window at once, every one of them, outcomes in input order", async () => {
    const r = await rollouts(5, 2);
    expect(r.outcomes.map((o) => o.episodeId)).toEqual(r.inputs.map((i) => i.episodeId));
    expect(await maxInFlight(r.workflowId)).toEqual({ max: 2, started: 5 });
  });

  it(`default to a window of ${DEFAULT_ROLLOUT_WINDOW}`, async () => {
    const r = await rollouts(DEFAULT_ROLLOUT_WINDOW + 2);
    expect(r.outcomes.every((o) => o.status === 'completed')).toBe(true);
    expect(await maxInFlight(r.workflowId)).toEqual({ max: DEFAULT_ROLLOUT_WINDOW, started: DEFAULT_ROLLOUT_WINDOW + 2 });
  });
});
