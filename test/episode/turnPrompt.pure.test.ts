// What a turn writes before its model call (domain/episode/turnPrompt.ts): observations at their reserved
// indices, in-context examples and their prompt, each kind of user prompt, and the tools offered.
import { describe, expect, it } from 'vitest';
import { finalPrompt, finalReaskPrompt, nudgePrompt, plainFinalPrompt, SUBMIT_ONLY, TOOLS } from '../../domain/episode/prompts';
import type { StepCall } from '../../domain/episode/stepRecord';
import { isPlainFinalAsk, turnPromptRows, turnTools } from '../../domain/episode/turnPrompt';
import type { CallOutcome } from '../../domain/episode/types';

const ok = (repr: string): CallOutcome['result'] => ({ ok: true, value: Number(repr), repr, stdout: '', ms: 1 });
const none = new Map<number, StepCall>();
const textCalls = new Map<number, StepCall>([[3, { source: 'text', label: 'f(1)', raw: 'CALL f(1)' }]]);

describe('turnPromptRows', () => {
  it('writes each observation at its reserved index, keeping what the call row stored', () => {
    const obs: CallOutcome[] = [{ stepIdx: 3, toolCallId: 't1', arguments: '1', result: ok('2') }];
    const { rows, nextIdx } = turnPromptRows({ idx: 4, mode: 'explore' }, obs, { protocol: 'native', reserved: textCalls });
    expect(nextIdx).toBe(4);
    expect(rows).toEqual([
      {
        idx: 3,
        kind: 'call',
        call: { source: 'text', label: 'f(1)', raw: 'CALL f(1)', toolCallId: 't1', tool: 'call_method', arguments: '1' },
        observation: { text: '2', category: expect.any(String), executed: true, result: ok('2') },
      },
    ]);
  });

  it('in context: the examples, then one user prompt naming the function and showing them', () => {
    const examples: CallOutcome[] = [{ stepIdx: 2, arguments: '5', result: ok('6') }];
    const { rows, nextIdx } = turnPromptRows({ idx: 3, mode: 'answer', examples, signature: 'def inc(x):', entryPoint: 'inc' }, [], {
      protocol: 'native',
      reserved: none,
    });
    expect(rows.map((r) => [r.idx, r.kind])).toEqual([
      [2, 'example'],
      [3, 'user'],
    ]);
    expect(rows[0]?.call).toEqual({ arguments: '5' });
    expect(rows[1]?.agentMessage?.content).toContain('inc(5)');
    expect(nextIdx).toBe(4);
  });

  it('adds the nudge, the final ask or the re-ask with its reason, in the protocol it is asked in', () => {
    const rowOf = (prompt: { kind: 'nudge' | 'final' | 'reask'; reason: string }, reserved = none, protocol: 'native' | 'text' = 'native') =>
      turnPromptRows({ idx: 9, mode: 'explore', prompt, entryPoint: 'inc' }, [], { protocol, reserved, methodEntryPoint: 'inc' }).rows[0];
    expect(rowOf({ kind: 'nudge', reason: 'no call' }, none, 'text')).toEqual({
      idx: 9,
      kind: 'user',
      agentMessage: { role: 'user', content: nudgePrompt('no call', 'text'), reason: 'no call' },
    });
    expect(rowOf({ kind: 'final', reason: 'budget' })?.agentMessage?.content).toBe(finalPrompt('budget', 'native'));
    expect(rowOf({ kind: 'final', reason: 'budget' }, textCalls)?.agentMessage?.content).toBe(plainFinalPrompt('budget', 'inc'));
    expect(rowOf({ kind: 'reask', reason: 'empty' })?.agentMessage?.content).toBe(finalReaskPrompt('empty', 'inc'));
  });
});

describe('the plain final ask and the tools offered', () => {
  it('the final ask is plain only after calls written as text', () => {
    expect(isPlainFinalAsk({ kind: 'final', reason: 'r' }, textCalls)).toBe(true);
    expect(isPlainFinalAsk({ kind: 'final', reason: 'r' }, new Map([[3, { source: 'native' }]]))).toBe(false);
    expect(isPlainFinalAsk({ kind: 'nudge', reason: 'r' }, textCalls)).toBe(false);
    expect(isPlainFinalAsk(undefined, textCalls)).toBe(false);
  });

  it('every tool while exploring, submit alone at the final ask, none for text models, the re-ask, the plain ask or an answer', () => {
    expect(turnTools({ mode: 'explore' }, 'native', none)).toBe(TOOLS);
    expect(turnTools({ mode: 'final', prompt: { kind: 'final', reason: 'r' } }, 'native', none)).toBe(SUBMIT_ONLY);
    expect(turnTools({ mode: 'final', prompt: { kind: 'final', reason: 'r' } }, 'native', textCalls)).toBeUndefined();
    expect(turnTools({ mode: 'final', prompt: { kind: 'reask', reason: 'empty' } }, 'native', none)).toBeUndefined();
    expect(turnTools({ mode: 'explore' }, 'text', none)).toBeUndefined();
    expect(turnTools({ mode: 'answer' }, 'native', none)).toBeUndefined();
  });
});
