// The final ask's decisions (domain/episode/finalAsk.ts): when it comes, what an answer to it ends the
// episode with, and the one re-ask.
import { describe, expect, it } from 'vitest';
import { afterFinalAnswer, finalAskPrompt, submittedEndReason } from '../../domain/episode/finalAsk';

describe('the final ask', () => {
  it('comes once the calls or the turns are used up, naming which', () => {
    expect(finalAskPrompt({ maxCalls: 4, maxTurns: 5 }, 3, 4)).toBeUndefined();
    expect(finalAskPrompt({ maxCalls: 4, maxTurns: 5 }, 4, 1)).toEqual({ kind: 'final', reason: 'You have used all 4 calls.' });
    expect(finalAskPrompt({ maxCalls: 4, maxTurns: 5 }, 1, 5)).toEqual({ kind: 'final', reason: 'You have used all 5 turns.' });
    // Both used up: the calls are named.
    expect(finalAskPrompt({ maxCalls: 4, maxTurns: 5 }, 4, 5)?.reason).toBe('You have used all 4 calls.');
  });

  it('a submission ends the episode with a reason that says after which ask', () => {
    expect(submittedEndReason('explore', false)).toBe('submitted');
    expect(submittedEndReason('final', false)).toBe('submitted_after_final_ask');
    expect(submittedEndReason('final', true)).toBe('submitted_after_reask');
  });

  it('a plain-text answer is the description', () => {
    expect(afterFinalAnswer({ answer: 'text', text: 'adds one' }, false)).toEqual({
      end: { endReason: 'answered_in_text_after_final_ask', finalDescription: 'adds one' },
    });
    expect(afterFinalAnswer({ answer: 'text', text: 'adds one' }, true)).toEqual({
      end: { endReason: 'answered_in_text_after_reask', finalDescription: 'adds one' },
    });
  });

  it('an answer without a description is asked once more, then ends the episode without one', () => {
    expect(afterFinalAnswer({ answer: 'problems_only' }, false)).toEqual({ reask: { kind: 'reask', reason: 'problems_only' } });
    expect(afterFinalAnswer({ answer: 'refusal' }, true)).toEqual({ end: { endReason: 'no_description_after_reask_refusal', finalDescription: null } });
  });
});
