// Workflow ids and search attributes of calibration runs (`PauKind = 'calibration' AND PauRunId = 'X'`).
import type { SearchAttributePair } from '@temporalio/common';
import { PauKind, PauMethodId, PauRunId } from '../temporal/searchAttributes';

export function calibrationWorkflowId(runId: string): string {
  return `calibrate/${runId}`;
}

export function calibrateMethodWorkflowId(runId: string, methodId: string): string {
  return `calibrate/${runId}/${methodId}`;
}

export function calibrationSearchAttributes(runId: string, methodId?: string): SearchAttributePair[] {
  return [{ key: PauKind, value: 'calibration' }, { key: PauRunId, value: runId }, ...(methodId ? [{ key: PauMethodId, value: methodId }] : [])];
}
