// The judge step alone (workflows/episode/judgeStep.ts), in a real workflow on the test server, with a
// stand-in judge workflow as its child: a completed episode with a judge starts it under the judge's workflow
// id; no judge or an episode that did not complete starts none; a failing judge never fails the episode.
// Without a judge, a completed episode measures its coverage instead (stand-in activities record it here).
import { WorkflowNotFoundError } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import type { EpisodeInput, EpisodeOutcome, EpisodeStatus } from '../../domain/episode/types';
import { judgeEpisodeWorkflowId } from '../../domain/judge/workflowIds';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { usePieceWorker } from '../helpers/pieceWorkers';

const coverageRecorded: { episodeId: string; observed: number }[] = [];
const piece = usePieceWorker({
  activities: {
    async planEpisodeCoverage() {
      return { source: 'def f(x):\n    return x\n', entryPoint: 'f', observedArgs: [] };
    },
    async recordEpisodeCoverage(x: { episodeId: string; observed: number }) {
      coverageRecorded.push({ episodeId: x.episodeId, observed: x.observed });
    },
  },
});

let n = 0;
/** Runs the judge step after an episode; returns the judge child's status (null: none was started). */
async function judgeAfter(status: EpisodeStatus, judge: boolean, tag = 'ok'): Promise<string | null> {
  const runId = `piece-judge-${Date.now().toString(36)}-${++n}`;
  const input: EpisodeInput = {
    runId,
    episodeId: `${runId}/m/${tag}/interactive/0`,
    methodId: 'm',
    model: 'agent',
    setting: 'interactive',
    sample: 0,
    ...(judge ? { judge: { judgeModel: 'mock-judge' } } : {}),
  };
  const outcome: EpisodeOutcome = { episodeId: input.episodeId, status, endReason: 'submitted', callsMade: 0, turns: 1, tokensIn: 0, tokensOut: 0, costUsd: 0 };
  await piece.client.workflow.execute('judgeStepProbe', { taskQueue: TASK_QUEUES.main, workflowId: `episode/${input.episodeId}`, args: [{ input, outcome }] });
  try {
    return (await piece.client.workflow.getHandle(judgeEpisodeWorkflowId('mock-judge', input.episodeId)).describe()).status.name;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return null;
    throw err;
  }
}

describe('the judge step', () => {
  it('judges a completed episode under the judge workflow id', async () => {
    expect(await judgeAfter('completed', true)).toBe('COMPLETED');
  });

  it('starts no judge without a judge model, or for an episode that failed or was cancelled', async () => {
    coverageRecorded.length = 0;
    expect(await judgeAfter('completed', false, 'free')).toBeNull();
    // No judge: the completed episode's coverage is measured instead (no observed call here: 0 of 0).
    expect(coverageRecorded).toEqual([{ episodeId: expect.stringMatching(/\/m\/free\/interactive\/0$/), observed: 0 }]);
    expect(await judgeAfter('failed', true)).toBeNull();
    expect(await judgeAfter('cancelled', true)).toBeNull();
    expect(await judgeAfter('failed', false)).toBeNull();
    expect(coverageRecorded).toHaveLength(1); // nor for an episode that did not complete
  });

  it("a judge that fails does not fail the episode's workflow", async () => {
    expect(await judgeAfter('completed', true, 'judge-fails')).toBe('FAILED');
  });
});
