// A checkpoint registry row as a training workflow registers it: the trained adapter (a `grpo-update` or
// `sft` trainer job's done event) and its GGUF export (the `export-gguf-lora` job's). One mapping for
// every kind of training run. Pure.
import type { DoneEvent } from './trainerProtocol';

export interface CheckpointRecord {
  id: string;
  runId: string;
  epoch: number;
  jobId: string;
  baseModel: string;
  parentId: string | null;
  path: string;
  adapterPath: string;
  adapterSha256: string;
  ggufPath: string | null;
  ggufSha256: string | null;
  config: unknown;
  metrics: unknown;
}

export function trainedCheckpointRecord(
  ids: { id: string; runId: string; epoch: number; jobId: string; baseModel: string; parentId: string | null },
  trained: DoneEvent,
  exported: DoneEvent,
  config: unknown,
): CheckpointRecord {
  return {
    ...ids,
    path: trained.checkpoint,
    adapterPath: trained.adapter,
    adapterSha256: trained.sha256,
    ggufPath: exported.adapter,
    ggufSha256: exported.sha256,
    config,
    metrics: trained.metrics,
  };
}
