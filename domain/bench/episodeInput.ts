// The input of one episode of a benchmark run, from the run's config. Pure (no I/O): used inside
// workflows, by the benchmark run and by reruns of failed episodes, so both start identical episodes.
import type { SearchAttributePair } from '@temporalio/common';
import { PauKind, PauMethodId, PauModel, PauRunId, PauSplit } from '../temporal/searchAttributes';
import type { BenchmarkConfig } from './types';
import { episodeIdOf, type EpisodeInput, type Setting } from '../episode/types';

export function episodeWorkflowId(runId: string, methodId: string, model: string, setting: Setting, sample: number): string {
  return `episode/${runId}/${methodId}/${model}/${setting}/${sample}`;
}

export function episodeInputFor(runId: string, config: BenchmarkConfig, methodId: string, model: string, setting: Setting, sample: number): EpisodeInput {
  return {
    runId,
    episodeId: episodeIdOf(runId, methodId, model, setting, sample),
    methodId,
    model,
    setting,
    sample,
    split: config.split,
    ...(config.budgets ? { budgets: config.budgets } : {}),
    ...(config.k !== undefined ? { k: config.k } : {}),
    ...(config.params ? { params: config.params } : {}),
    ...(config.replay ? { replay: true } : {}),
    ...(config.sandboxLimits ? { sandboxLimits: config.sandboxLimits } : {}),
    ...(config.afterEpisode ? { afterEpisode: config.afterEpisode } : {}),
  };
}

/** The search attributes every episode workflow starts with (the UI finds episodes by these). */
export function episodeSearchAttributes(runId: string, methodId: string, model: string, split: string): SearchAttributePair[] {
  return [
    { key: PauKind, value: 'episode' },
    { key: PauRunId, value: runId },
    { key: PauModel, value: model },
    { key: PauMethodId, value: methodId },
    { key: PauSplit, value: split },
  ];
}
