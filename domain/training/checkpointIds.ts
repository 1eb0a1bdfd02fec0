// Names of checkpoints and SFT runs, derived once here so the CLI, workflows, activities and tests agree.
// `ckpt:<id>` is a model name wherever a model is named (agent, judge, teacher); the id is resolved from
// the `checkpoints` table at call time, so running workers see new checkpoints without a restart.
import type { SearchAttributePair } from '@temporalio/common';
import { PauKind, PauModel, PauRunId, PauSplit } from '../temporal/searchAttributes';

export const CKPT_PREFIX = 'ckpt:';

export function isCheckpointModel(name: string): boolean {
  return name.startsWith(CKPT_PREFIX);
}

/** `ckpt:abc` → `abc`; undefined for other names. */
export function checkpointIdOf(name: string): string | undefined {
  return isCheckpointModel(name) ? name.slice(CKPT_PREFIX.length) : undefined;
}

export function checkpointModelName(id: string): string {
  return `${CKPT_PREFIX}${id}`;
}

/** A run id or data set name safe in workflow ids, job directories and model names. */
export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,100}$/;

/** The trainer job of an SFT run: its directory, its resume point and the checkpoint's idempotency key. */
export function sftJobId(runId: string): string {
  return `sft-${runId}`;
}

/** The checkpoint an SFT run registers: one per job, so the id is the job id. */
export function sftCheckpointId(runId: string): string {
  return sftJobId(runId);
}

export function sftExportJobId(runId: string): string {
  return `${sftJobId(runId)}-gguf`;
}

/** The benchmark run that evaluates an SFT run's checkpoint beside its base. */
export function sftEvalRunId(runId: string): string {
  return `${runId}-eval`;
}

/** The benchmark run whose judged teacher episodes make data set NAME (one run per data set). */
export function sftDataRunId(name: string): string {
  return `sft-data-${name}`;
}

export function sftBuildWorkflowId(name: string): string {
  return `sft-build/${name}`;
}

export function sftTrainWorkflowId(runId: string): string {
  return `sft/${runId}`;
}

export function sftBuildSearchAttributes(name: string, teacher: string, split: string): SearchAttributePair[] {
  return [
    { key: PauKind, value: 'sft-build' },
    { key: PauRunId, value: sftDataRunId(name) },
    { key: PauModel, value: teacher },
    { key: PauSplit, value: split },
  ];
}

export function sftTrainSearchAttributes(runId: string, base: string, split: string): SearchAttributePair[] {
  return [
    { key: PauKind, value: 'sft' },
    { key: PauRunId, value: runId },
    { key: PauModel, value: base },
    { key: PauSplit, value: split },
  ];
}
