// The gate a trained checkpoint passes before its comparisons are read (domain/training/policyMoved.ts).
import { describe, expect, it } from 'vitest';
import { agentTurns, gateLine, MOVED_THRESHOLDS, policyMovedGate, shiftKl, transcriptDeparts } from '../../domain/training/policyMoved';

const turn = (content: string, ...calls: string[]) => ({ content, calls });

describe('did the policy move?', () => {
  it('a transcript departs when any agent turn or the number of turns differs', () => {
    const base = [turn('', 'call_method({"arguments":"1"})'), turn('Returns 1.')];
    expect(transcriptDeparts(base, base)).toBe(false);
    expect(transcriptDeparts([turn('', 'call_method({"arguments":"1"})'), turn('Returns 1. ')], base)).toBe(false); // whitespace
    expect(transcriptDeparts([turn('', 'call_method({"arguments":"2"})'), turn('Returns 1.')], base)).toBe(true);
    expect(transcriptDeparts([turn('Returns 1.')], base)).toBe(true);
    expect(transcriptDeparts([turn('', 'a()', 'b()'), turn('Returns 1.')], [turn('', 'a()'), turn('Returns 1.')])).toBe(true);
  });

  it('reads agent turns from OpenAI chat messages: text and tool calls, nothing else', () => {
    const turns = agentTurns([
      { role: 'system', content: 's' },
      { role: 'assistant', content: null, tool_calls: [{ function: { name: 'call_method', arguments: '{"arguments":"2"}' } }] },
      { role: 'tool', content: '4' },
      { role: 'assistant', content: 'Doubles x.' },
    ]);
    expect(turns).toEqual([turn('', 'call_method({"arguments":"2"})'), turn('Doubles x.')]);
  });

  it('moved only at KL >= 0.01 and >= 25 % of transcripts departing; otherwise inconclusive, never a null', () => {
    expect(MOVED_THRESHOLDS).toEqual({ minKl: 0.01, minDeparted: 0.25 });
    const moved = policyMovedGate({ mean: 0.02, tokens: 900 }, { compared: 16, departed: 6 });
    expect(moved).toMatchObject({ moved: true, departedShare: 0.375, klMean: 0.02, klTokens: 900 });
    expect(gateLine(moved)).toBe('the policy moved: KL 0.0200 nats/token over 900 agent tokens; 6 of 16 episodes depart from the base (38 %)');
    // the review's 1e-5 sign step: transcripts equal to the base's on 4 of 6 methods, KL tiny
    const still = policyMovedGate({ mean: 0.0004, tokens: 500 }, { compared: 6, departed: 2 });
    expect(still.moved).toBe(false);
    expect(gateLine(still)).toMatch(/^inconclusive: the policy did not move \(KL 0\.0004 .*2 of 6 episodes .*needs KL >= 0\.01 and >= 25 % departing\)$/);
    // each threshold alone is not enough
    expect(policyMovedGate({ mean: 0.5, tokens: 9 }, { compared: 16, departed: 3 }).moved).toBe(false);
    expect(policyMovedGate({ mean: 0.005, tokens: 9 }, { compared: 16, departed: 16 }).moved).toBe(false);
    // nothing measured: not moved, said so
    const none = policyMovedGate(null, { compared: 0, departed: 0 });
    expect(none.moved).toBe(false);
    expect(gateLine(none)).toContain('KL not measured; no episode pair');
  });

  it("reads the KL from a policy-shift job's done metrics", () => {
    expect(shiftKl({ kl_mean: 0.03, tokens: 120 })).toEqual({ mean: 0.03, tokens: 120 });
    expect(shiftKl({})).toBeNull();
    expect(shiftKl({ kl_mean: Number.NaN })).toBeNull();
  });
});
