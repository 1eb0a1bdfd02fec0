// Workflow ids and search attributes of benchmark runs and their episodes: built here only, so the CLI,
// the Schedule, reruns and the tests find the same executions.
import type { SearchAttributePair } from '@temporalio/common';
import { PauKind, PauMethodId, PauModel, PauRunId, PauSplit } from '../temporal/searchAttributes';
import type { Setting } from '../episode/types';
import type { BenchmarkConfig } from './types';

export function benchWorkflowId(runId: string): string {
  return `bench/${runId}`;
}

export function episodeWorkflowId(runId: string, methodId: string, model: string, setting: Setting, sample: number): string {
  return `episode/${runId}/${methodId}/${model}/${setting}/${sample}`;
}

/** The search attributes a benchmark run starts with. */
export function benchmarkSearchAttributes(runId: string, config: Pick<BenchmarkConfig, 'models' | 'split'>): SearchAttributePair[] {
  return [
    { key: PauKind, value: 'benchmark' },
    { key: PauRunId, value: runId },
    { key: PauModel, value: config.models.join(',') },
    { key: PauSplit, value: config.split },
  ];
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
