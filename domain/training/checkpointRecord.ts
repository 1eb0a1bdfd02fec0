// A checkpoint registry row as a training workflow registers it: the trained adapter (a `grpo-update` or
// `sft` trainer job's done event) and its GGUF export (the `export-gguf-lora` job's). One mapping for
// every kind of training run. Pure.
import type { AnyDocument } from '../common/jsonDocument';
import type { DoneEvent } from './trainerProtocol';

/** The names a checkpoint's files have in a checkpoint directory, wherever it is fetched to. */
export const CHECKPOINT_FILE_NAMES = {
  adapter: 'adapter_model.safetensors',
  config: 'adapter_config.json',
  gguf: 'adapter.gguf',
} as const;

/** One stored file of a checkpoint (a blob every host can fetch, verified by its sha256). */
export interface CheckpointFile {
  name: string;
  sha256: string;
  bytes: number;
}

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
  config: AnyDocument | null;
  metrics: AnyDocument | null;
  /** The files stored for other hosts (storeCheckpointFiles on the gpu host); absent before they were stored. */
  files?: CheckpointFile[];
}

export function trainedCheckpointRecord(
  ids: { id: string; runId: string; epoch: number; jobId: string; baseModel: string; parentId: string | null },
  trained: DoneEvent,
  exported: DoneEvent,
  config: AnyDocument | null,
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

/** The patch (workflows' `patched()`) under which training runs store their checkpoints' files. */
export const CHECKPOINT_FILES_PATCH = 'checkpoint-files-stored';

/** What storeCheckpointFiles stores of a trained checkpoint: the adapter directory and the GGUF export. */
export function checkpointFilesOf(
  trained: DoneEvent,
  exported: DoneEvent | null,
): { checkpointDir: string; adapterSha256: string; ggufPath: string | null; ggufSha256: string | null } {
  return { checkpointDir: trained.checkpoint, adapterSha256: trained.sha256, ggufPath: exported?.adapter ?? null, ggufSha256: exported?.sha256 ?? null };
}
