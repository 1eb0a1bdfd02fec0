// The in-context setting alone (workflows/episode/inContextAnswer.ts), in a real workflow on the test server:
// the example inputs run in the real sandbox (a pau-sandbox worker), then one scripted model turn answers.
import { describe, expect, it } from 'vitest';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import type { InContextProbeInput, InContextProbeResult } from '../helpers/pieceWorkflows';
import { usePieceWorker } from '../helpers/pieceWorkers';

const piece = usePieceWorker({ queues: ['pau-sandbox'] });

let n = 0;
const answer = (x: InContextProbeInput): Promise<InContextProbeResult> =>
  piece.client.workflow.execute('inContextProbe', { taskQueue: TASK_QUEUES.main, workflowId: `piece-in-context-${Date.now().toString(36)}-${++n}`, args: [x] });

const CODE = 'def inc(x):\n    if x < 0:\n        raise ValueError("negative")\n    return x + 1\n';

describe('the in-context answer', () => {
  it('shows the examples with their results, at the next free steps, and takes one answer', async () => {
    const r = await answer({ code: CODE, entryPoint: 'inc', exampleInputs: ['1', '-1', '41'], text: 'adds one; negative inputs raise' });
    expect(r.end).toEqual({ endReason: 'answered', finalDescription: 'adds one; negative inputs raise' });
    expect(r.sent).toEqual({
      idx: 8,
      mode: 'answer',
      callsLeft: 0,
      signature: 'inc(x)',
      examples: [
        { stepIdx: 5, arguments: '1', repr: '2' },
        { stepIdx: 6, arguments: '-1', error: 'ValueError' },
        { stepIdx: 7, arguments: '41', repr: '42' },
      ],
    });
    expect(r.tally).toMatchObject({ turns: 1, callsMade: 0, nextIdx: 9, tokensIn: 7 });
  });

  it('an answer without text ends with its kind and no description', async () => {
    const r = await answer({ code: CODE, entryPoint: 'inc', exampleInputs: ['1'] });
    expect(r.end).toEqual({ endReason: 'empty', finalDescription: null });
  });

  it('a cancelled episode takes no turn', async () => {
    const r = await answer({ code: CODE, entryPoint: 'inc', exampleInputs: ['1'], cancelled: true });
    expect(r.end).toEqual({ endReason: 'cancelled', finalDescription: null });
    expect(r.sent).toBeUndefined();
    expect(r.tally.turns).toBe(0);
  });
});
