// The in-context examples as steps (domain/common/steps.ts): the same examples as the plain function, with a
// pause between chunks of work where an activity heartbeats and lets its event loop run, stopped by an abort
// (a worker shutting down), and refused above the episode's k range before any work.
import { describe, expect, it } from 'vitest';
import { runSteps, runStepsPausing } from '../../domain/common/steps';
import { IN_CONTEXT_K_RANGE } from '../../domain/episode/bounds';
import { ATTEMPTS_PER_STEP, generateInputSteps, inContextExampleSteps, inContextExamples, inputSpec } from '../../domain/inputs/generator';

const LIST = { id: 'steps/list', probeInputs: ['[3, 1, 2]', '[]'], heldoutInputs: ['[5, 5]'], heldoutGenerated: ['[0]'] };
const STR = { id: 'steps/str', probeInputs: ["'abc', 'b'", "'hello world', 'o'"], heldoutInputs: ["'xyz', 'z'"] };
// One bool argument: two inputs exist, so the generator spends its 25 attempts per example finding none.
const BOOL = { id: 'steps/bool', probeInputs: ['True'], heldoutInputs: ['False'] };

describe('in-context examples in steps', () => {
  it.each([
    ['a list argument', LIST, 30],
    ['two strings', STR, 12],
    ['one bool', BOOL, 20],
  ])('%s: the same examples as the plain function, pausing between chunks', async (_what, m, k) => {
    let pauses = 0;
    const stepped = await runStepsPausing(inContextExampleSteps(m, k), { pause: async () => void pauses++ });
    expect(stepped).toEqual(inContextExamples(m, k));
    expect(runSteps(inContextExampleSteps(m, k))).toEqual(stepped);
    // The bool method finds no example past its probe: 25 attempts for each of the other k - 1, a pause
    // before every ATTEMPTS_PER_STEP-th.
    if (m === BOOL) expect(pauses).toBe(Math.floor(((k - 1) * 25 - 1) / ATTEMPTS_PER_STEP));
  });

  it('pauses once per ATTEMPTS_PER_STEP attempts, and never when the work is one chunk', async () => {
    const spec = inputSpec(['True']);
    const count = 40; // 1,000 attempts: one input is not known, then none is left
    let pauses = 0;
    const out = await runStepsPausing(generateInputSteps(spec, { count, seedKey: 'b', purpose: 'examples' }), { pause: async () => void pauses++ });
    expect(out).toEqual(['False']);
    expect(pauses).toBe(Math.floor((count * 25 - 1) / ATTEMPTS_PER_STEP));
    let none = 0;
    await runStepsPausing(inContextExampleSteps(LIST, 2), { pause: async () => void none++ });
    expect(none).toBe(0); // the probe inputs alone: no generation
  });

  it('stops at the next pause once its signal is aborted, with the reason', async () => {
    const reason = new Error('worker shutting down');
    const c = new AbortController();
    let pauses = 0;
    const run = runStepsPausing(inContextExampleSteps(BOOL, 200), {
      pause: async () => {
        pauses++;
        if (pauses === 2) c.abort(reason);
      },
      signal: c.signal,
    });
    await expect(run).rejects.toBe(reason);
    expect(pauses).toBe(2); // not one step after the abort
    const before = new AbortController();
    before.abort(reason);
    await expect(runStepsPausing(inContextExampleSteps(BOOL, 200), { pause: async () => {}, signal: before.signal })).rejects.toBe(reason);
  });

  it('refuses a k above its range before any work, naming k and the range', () => {
    expect(IN_CONTEXT_K_RANGE.max).toBe(200);
    expect(() => inContextExamples(LIST, 1_000_000_000)).toThrow(new RangeError('in-context k must be a whole number from 0 to 200, not 1000000000'));
    expect(() => inContextExamples(LIST, 201)).toThrow(RangeError);
    expect(() => inContextExamples(LIST, -1)).toThrow(RangeError);
    expect(inContextExamples(LIST, 0)).toEqual([]);
    expect(inContextExamples(LIST, 200)).toHaveLength(200);
  });
});
