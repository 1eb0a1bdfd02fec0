// Which episode a benchmark run's i-th slot is: each method, in the run's order, × the combos (model,
// setting, sample) it runs. A model with a method limit (BenchmarkConfig.modelLimits) runs on the first N
// methods only, so later methods have fewer combos; without limits slot i is method ⌊i / C⌋ with combo
// i mod C, as it always was, so recorded histories replay unchanged. Pure (workflow-safe).
import type { Setting } from '../episode/types';
import type { BenchmarkConfig } from './types';

export interface EpisodeCombo {
  model: string;
  setting: Setting;
  sample: number;
}

/** Every (model, setting, sample) of a config, in the order a method's episodes start. */
export function runCombos(config: Pick<BenchmarkConfig, 'models' | 'settings' | 'samples'>): EpisodeCombo[] {
  const combos: EpisodeCombo[] = [];
  for (const model of config.models)
    for (const setting of config.settings) for (let sample = 0; sample < config.samples; sample++) combos.push({ model, setting, sample });
  return combos;
}

export interface EpisodeSlots {
  total: number;
  /** The method's position in the run's list and the combo of slot `i` (0 ≤ i < total). */
  at(i: number): { method: number; combo: EpisodeCombo };
}

export function episodeSlots(methodCount: number, combos: readonly EpisodeCombo[], limits: Readonly<Record<string, number>> = {}): EpisodeSlots {
  // Runs of consecutive methods with the same combos: cut at every limit that falls inside the method list.
  const cuts = [...new Set([0, methodCount, ...Object.values(limits).filter((l) => l > 0 && l < methodCount)])].sort((a, b) => a - b);
  const segments: { from: number; first: number; size: number; combos: EpisodeCombo[] }[] = [];
  let first = 0;
  for (let k = 0; k + 1 < cuts.length; k++) {
    const from = cuts[k]!;
    const methods = cuts[k + 1]! - from;
    const here = combos.filter((c) => (limits[c.model] ?? Number.POSITIVE_INFINITY) > from);
    if (here.length === 0 || methods <= 0) continue;
    segments.push({ from, first, size: methods * here.length, combos: here });
    first += methods * here.length;
  }
  return {
    total: first,
    at(i) {
      const s = segments.find((seg) => i >= seg.first && i < seg.first + seg.size);
      if (!s) throw new RangeError(`episode slot ${i} is outside the run's ${first} episodes`);
      const offset = i - s.first;
      return { method: s.from + Math.floor(offset / s.combos.length), combo: s.combos[offset % s.combos.length]! };
    },
  };
}

/** What is wrong with a config's method limits (a model it does not run, a limit below 1); empty: nothing. */
export function modelLimitProblems(config: Pick<BenchmarkConfig, 'models' | 'modelLimits'>): string[] {
  return Object.entries(config.modelLimits ?? {}).flatMap(([model, n]) => [
    ...(config.models.includes(model) ? [] : [`modelLimits names ${model}, which is not one of the run's models (${config.models.join(', ')})`]),
    ...(Number.isInteger(n) && n >= 1 ? [] : [`modelLimits.${model} must be a whole number of methods, at least 1 (got ${n})`]),
  ]);
}
