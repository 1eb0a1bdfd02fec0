import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { linkedAbort } from '../../domain/llm/linkedAbort';

describe('linkedAbort (a per-request signal under an activity cancellation signal)', () => {
  it('aborts with its parent, and leaves no listener on the parent once disposed', () => {
    const parent = new AbortController();
    const calls = Array.from({ length: 12 }, () => linkedAbort(parent.signal));
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(12);
    for (const c of calls.slice(1)) c.dispose();
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1);
    parent.abort(new Error('cancelled'));
    expect(calls[0]!.signal.aborted).toBe(true);
    expect((calls[0]!.signal.reason as Error).message).toBe('cancelled');
    expect(calls[1]!.signal.aborted).toBe(false);
  });

  it('is aborted at once under a parent already aborted', () => {
    const parent = new AbortController();
    parent.abort('gone');
    expect(linkedAbort(parent.signal).signal.aborted).toBe(true);
  });
});
