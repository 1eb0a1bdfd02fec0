import { describe, expect, it } from 'vitest';
import { episodeSlots, modelLimitProblems, runCombos } from '../../domain/bench/episodeSlots';

const config = { models: ['llm', 'oracle', 'random'], settings: ['interactive', 'in-context'] as const, samples: 1 };
const combos = runCombos({ ...config, settings: [...config.settings] });
const all = (slots: ReturnType<typeof episodeSlots>) => Array.from({ length: slots.total }, (_, i) => slots.at(i));

describe('episode slots', () => {
  it('without limits: slot i is method ⌊i / C⌋ with combo i mod C (the order recorded histories replay)', () => {
    const slots = episodeSlots(4, combos);
    expect(slots.total).toBe(24);
    all(slots).forEach((s, i) => {
      expect(s.method).toBe(Math.floor(i / 6));
      expect(s.combo).toEqual(combos[i % 6]);
    });
  });

  it('a limited model covers only the first N methods; the others cover every method, each episode once', () => {
    const slots = episodeSlots(5, combos, { llm: 1 });
    expect(slots.total).toBe(5 * 4 + 2);
    const keys = all(slots).map((s) => `${s.method}/${s.combo.model}/${s.combo.setting}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.filter((k) => k.includes('/llm/'))).toEqual(['0/llm/interactive', '0/llm/in-context']);
    expect(keys.slice(0, 6).every((k) => k.startsWith('0/'))).toBe(true);
    expect(keys.filter((k) => k.includes('/random/'))).toHaveLength(10);
    // Two limits: oracle on 3 methods, llm on 1, random on all 5.
    const two = all(episodeSlots(5, combos, { llm: 1, oracle: 3 }));
    expect(two).toHaveLength(2 + 3 * 2 + 5 * 2);
    expect(two.filter((s) => s.combo.model === 'oracle').map((s) => s.method)).toEqual([0, 0, 1, 1, 2, 2]);
  });

  it('a limit at or above the method count changes nothing; a slot past the end is an error', () => {
    const slots = episodeSlots(3, combos, { llm: 3, oracle: 99 });
    expect(all(slots)).toEqual(all(episodeSlots(3, combos)));
    expect(() => slots.at(18)).toThrow(/outside the run's 18 episodes/);
  });

  it('refuses limits for a model the run does not have, and limits below 1', () => {
    expect(modelLimitProblems({ models: ['llm'], modelLimits: { llm: 2 } })).toEqual([]);
    expect(modelLimitProblems({ models: ['llm'], modelLimits: { other: 2, llm: 0 } })).toEqual([
      "modelLimits names other, which is not one of the run's models (llm)",
      'modelLimits.llm must be a whole number of methods, at least 1 (got 0)',
    ]);
  });
});
