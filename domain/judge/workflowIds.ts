// Workflow ids and search attributes of judging: one scheme for a judged episode whichever path starts it
// (the episode's judge step or a judge run), so `PauRunId = 'X' AND PauKind = 'judge'` lists them all.
import type { SearchAttributePair } from '@temporalio/common';
import { PauKind, PauMethodId, PauModel, PauRunId } from '../temporal/searchAttributes';

export function judgeEpisodeWorkflowId(judgeModel: string, episodeId: string): string {
  return `judge/${judgeModel}/${episodeId}`;
}

export function judgeRunWorkflowId(runId: string, judgeModel: string): string {
  return `judge/${judgeModel}/${runId}`;
}

export function judgeRunSearchAttributes(runId: string, judgeModel: string): SearchAttributePair[] {
  return [
    { key: PauKind, value: 'judge' },
    { key: PauRunId, value: runId },
    { key: PauModel, value: judgeModel },
  ];
}

export function judgeEpisodeSearchAttributes(runId: string, judgeModel: string, methodId: string): SearchAttributePair[] {
  return [...judgeRunSearchAttributes(runId, judgeModel), { key: PauMethodId, value: methodId }];
}

/** One card computation at a time per (judge, coder and its programs per description, dataset split, judge format); a finished one can be started again. */
export function judgeCardWorkflowId(judgeModel: string, coderModel: string, dataset: string, split: string, format: string, coderSamples = 1): string {
  return `judge-card/${judgeModel}/${coderModel}/${dataset}/${split}/${format}${coderSamples > 1 ? `/coder-mbr${coderSamples}` : ''}`;
}

/** One check of a shipped card at a time per (judge, coder, dataset split, judge format). */
export function shippedJudgeCardWorkflowId(judgeModel: string, coderModel: string, dataset: string, split: string, format: string): string {
  return `judge-card-shipped/${judgeModel}/${coderModel}/${dataset}/${split}/${format}`;
}

export function judgeCardSearchAttributes(judgeModel: string): SearchAttributePair[] {
  return [
    { key: PauKind, value: 'judge-card' },
    { key: PauModel, value: judgeModel },
  ];
}
