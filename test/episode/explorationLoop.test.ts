// The interactive episode's loop alone (workflows/episode/explorationLoop.ts), in a real workflow on the test
// server, with a scripted agent: calls and their observations, the final ask when the budgets are used up,
// its one re-ask, the early end without progress, placement inline, a cancellation at the turn boundary.
import { describe, expect, it } from 'vitest';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import type { ExplorationProbeInput, ExplorationProbeResult } from '../helpers/pieceWorkflows';
import { usePieceWorker } from '../helpers/pieceWorkers';

const piece = usePieceWorker();

let n = 0;
const explore = (x: ExplorationProbeInput): Promise<ExplorationProbeResult> =>
  piece.client.workflow.execute('explorationLoopProbe', {
    taskQueue: TASK_QUEUES.main,
    workflowId: `piece-explore-${Date.now().toString(36)}-${++n}`,
    args: [x],
  });

describe('the exploration loop', () => {
  it("runs each turn's calls and sends their observations with the next turn, until the agent submits", async () => {
    const r = await explore({
      script: [
        { answer: 'tool_calls', calls: 2 },
        { answer: 'tool_calls', calls: 1 },
        { answer: 'submitted', text: 'adds one' },
      ],
    });
    expect(r.end).toEqual({ endReason: 'submitted', finalDescription: 'adds one' });
    expect(r.batches).toEqual([2, 1]);
    expect(r.sent.map((s) => [s.observations, s.callsLeft])).toEqual([
      [0, 20],
      [2, 18],
      [1, 17],
    ]);
    expect(r.tally).toMatchObject({ turns: 3, callsMade: 3, tokensIn: 30, tokensOut: 6 });
  });

  it('asks for the final description once the calls are used up; a plain-text answer then counts', async () => {
    const r = await explore({
      budgets: { maxCalls: 2 },
      script: [
        { answer: 'tool_calls', calls: 2 },
        { answer: 'text', text: 'it adds' },
      ],
    });
    expect(r.end).toEqual({ endReason: 'answered_in_text_after_final_ask', finalDescription: 'it adds' });
    expect(r.sent[1]).toMatchObject({ mode: 'final', prompt: { kind: 'final', reason: 'You have used all 2 calls.' }, observations: 2 });
  });

  it('a final answer without a description is asked once more, with the entry point; a second one ends the episode', async () => {
    const r = await explore({
      budgets: { maxTurns: 1 },
      script: [{ answer: 'tool_calls', calls: 1 }, { answer: 'problems_only' }, { answer: 'refusal' }, { answer: 'submitted', text: 'never asked' }],
    });
    expect(r.end).toEqual({ endReason: 'no_description_after_reask_refusal', finalDescription: null });
    expect(r.sent.map((s) => [s.mode, s.prompt?.kind, s.entryPoint])).toEqual([
      ['explore', undefined, undefined],
      ['final', 'final', undefined],
      ['final', 'reask', 'f'],
    ]);
    expect(r.sent[2]?.prompt).toEqual({ kind: 'reask', reason: 'problems_only' });
    expect(r.tally.turns).toBe(3);
  });

  it('a description submitted on the re-ask ends it as submitted_after_reask', async () => {
    const r = await explore({
      budgets: { maxTurns: 1 },
      script: [{ answer: 'tool_calls', calls: 1 }, { answer: 'empty' }, { answer: 'submitted', text: 'adds' }],
    });
    expect(r.end).toEqual({ endReason: 'submitted_after_reask', finalDescription: 'adds' });
  });

  it('turns without progress end the episode early, nudged in between, keeping the latest prose', async () => {
    const r = await explore({
      budgets: { maxIdleTurns: 3 },
      script: [
        { answer: 'tool_calls', calls: 1 },
        { answer: 'text', text: 'maybe it adds' },
        { answer: 'refusal' },
        { answer: 'empty' },
        { answer: 'submitted' },
      ],
    });
    expect(r.end).toEqual({ endReason: 'no_progress', finalDescription: 'maybe it adds' });
    expect(r.sent.map((s) => s.prompt?.reason)).toEqual([undefined, undefined, 'text', 'refusal']);
    expect(r.tally).toMatchObject({ turns: 4, callsMade: 1 });
  });

  it("placement inline: a step's calls go with the next turn, not through the sandbox batch", async () => {
    const r = await explore({
      inline: true,
      script: [
        { answer: 'tool_calls', calls: 3 },
        { answer: 'submitted', text: 'adds' },
      ],
    });
    expect(r.end.endReason).toBe('submitted');
    expect(r.batches).toEqual([]);
    expect(r.sent.map((s) => [s.pending, s.observations, s.callsLeft])).toEqual([
      [0, 0, 20],
      [3, 0, 17],
    ]);
    expect(r.tally.callsMade).toBe(3);
  });

  it('a cancelled episode ends at the turn boundary', async () => {
    const r = await explore({
      script: [
        { answer: 'tool_calls', calls: 1 },
        { answer: 'submitted', cancelled: true },
      ],
    });
    expect(r.end).toEqual({ endReason: 'cancelled', finalDescription: null });
    expect(r.tally).toMatchObject({ turns: 1, callsMade: 1 });
  });
});
