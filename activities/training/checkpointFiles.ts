// Checkpoints that travel (docs/checkpoints.md): a registered checkpoint's files (the peft adapter + its
// config, the GGUF export llama.cpp serves) are stored as content-addressed blobs every host can read
// (platform/storage/blobStore.ts), and fetched into this host's checkpoint cache where they are served
// (`ckpt:<id>`) or continued from (the next GRPO epoch's init_adapter). Every fetched file is verified by
// its sha256 before it is used; a stored blob that does not match is a non-retryable CheckpointFileCorrupt
// error, and the cache keeps what it had.
import fs from 'node:fs';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { eq } from 'drizzle-orm';
import { blobStoreConfig, checkpointCacheDir } from '../../config/blobStore';
import type { Db } from '../../db/client';
import { checkpointFiles } from '../../db/schema/blobs';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import { CHECKPOINT_FILE_NAMES, type CheckpointFile } from '../../domain/training/checkpointRecord';
import { BlobCorruptError, BlobMissingError, BlobStore, BlobStoreUnavailableError, sha256File } from '../../platform/storage/blobStore';

export interface StoreCheckpointFilesInput {
  /** The trainer's checkpoint directory (adapter_model.safetensors + adapter_config.json + DONE). */
  checkpointDir: string;
  /** The adapter's sha256 from the trainer's done event: the file must still hash to it. */
  adapterSha256: string;
  /** The GGUF export and its sha256 (export-gguf-lora's done event), when there is one. */
  ggufPath: string | null;
  ggufSha256: string | null;
}

export interface StoredCheckpointFiles {
  files: CheckpointFile[];
  /** Bytes written to the store now (0 when every file was stored before: a retry). */
  writtenBytes: number;
  ms: number;
}

/** Stores a checkpoint's files (on the host that has them); idempotent: stored bytes are not stored again. */
export async function storeCheckpointFiles(store: BlobStore, input: StoreCheckpointFilesInput): Promise<StoredCheckpointFiles> {
  const started = Date.now();
  const wanted: { name: string; file: string; sha256?: string }[] = [
    { name: CHECKPOINT_FILE_NAMES.adapter, file: path.join(input.checkpointDir, CHECKPOINT_FILE_NAMES.adapter), sha256: input.adapterSha256 },
    { name: CHECKPOINT_FILE_NAMES.config, file: path.join(input.checkpointDir, CHECKPOINT_FILE_NAMES.config) },
  ];
  if (input.ggufPath) wanted.push({ name: CHECKPOINT_FILE_NAMES.gguf, file: input.ggufPath, ...(input.ggufSha256 ? { sha256: input.ggufSha256 } : {}) });
  const files: CheckpointFile[] = [];
  let writtenBytes = 0;
  for (const w of wanted) {
    if (!fs.existsSync(w.file)) throw new BlobMissingError(`checkpoint file ${w.file} does not exist on this host; nothing to store`);
    const r = await store.put(w.file, w.sha256);
    files.push({ name: w.name, sha256: r.sha256, bytes: r.bytes });
    if (r.written) writtenBytes += r.bytes;
  }
  return { files, writtenBytes, ms: Date.now() - started };
}

/** The files stored for a checkpoint (none for one registered before files were stored). */
export async function storedCheckpointFiles(db: Db, checkpointId: string): Promise<CheckpointFile[]> {
  return db
    .select({ name: checkpointFiles.name, sha256: checkpointFiles.sha256, bytes: checkpointFiles.bytes })
    .from(checkpointFiles)
    .where(eq(checkpointFiles.checkpointId, checkpointId))
    .orderBy(checkpointFiles.name);
}

const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$/;

/** Hashes already checked in this process, by path, size and mtime: a file used on every call is hashed once. */
const verified = new Map<string, string>();

async function localCopyMatches(file: string, f: CheckpointFile): Promise<boolean> {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    return false;
  }
  if (st.size !== f.bytes) return false;
  const key = `${file}\u0000${st.size}\u0000${st.mtimeMs}`;
  if (verified.get(key) === f.sha256) return true;
  const { sha256 } = await sha256File(file);
  if (sha256 !== f.sha256) return false;
  verified.set(key, sha256);
  return true;
}

export interface MaterializedCheckpoint {
  /** The checkpoint's directory in this host's cache: the files by their CHECKPOINT_FILE_NAMES, and DONE. */
  dir: string;
  files: CheckpointFile[];
  /** The files that were fetched from the store now (the others were in the cache, verified). */
  fetched: string[];
  ms: number;
}

export interface MaterializeOptions {
  /** This host's checkpoint cache (default: checkpointCacheDir()). */
  cacheDir?: string;
  /** Only these files (default: all stored). */
  names?: string[];
  store?: BlobStore;
}

/**
 * The checkpoint's stored files in this host's cache, fetched when absent (or when the cached copy does not
 * hash to the recorded sha256), each verified before it is put in place. Undefined when the checkpoint has
 * no stored files (registered before checkpoints travelled: served from its job directory as before).
 * With the adapter, a DONE file holding its sha256 is written last, so the directory is a complete trainer
 * checkpoint (`init_adapter`) and a peft / vLLM LoRA directory.
 */
export async function materializeCheckpoint(db: Db, checkpointId: string, opts: MaterializeOptions = {}): Promise<MaterializedCheckpoint | undefined> {
  const started = Date.now();
  if (!SAFE_ID.test(checkpointId)) throw new BlobMissingError(`checkpoint id ${JSON.stringify(checkpointId)} cannot name a cache directory`);
  const all = await storedCheckpointFiles(db, checkpointId);
  if (all.length === 0) return undefined;
  const files = opts.names ? all.filter((f) => opts.names!.includes(f.name)) : all;
  for (const n of opts.names ?? []) {
    if (!files.some((f) => f.name === n)) throw new BlobMissingError(`checkpoint ${checkpointId} has no stored ${n}`);
  }
  const dir = path.join(opts.cacheDir ?? checkpointCacheDir(), checkpointId);
  const store = opts.store ?? new BlobStore(db, blobStoreConfig());
  const fetched: string[] = [];
  for (const f of files) {
    const dest = path.join(dir, f.name);
    if (await localCopyMatches(dest, f)) continue;
    await store.fetchTo(f.sha256, dest);
    fetched.push(f.name);
  }
  const adapter = files.find((f) => f.name === CHECKPOINT_FILE_NAMES.adapter);
  if (adapter) {
    const done = path.join(dir, 'DONE');
    const want = `${adapter.sha256}\n`;
    if (!fs.existsSync(done) || fs.readFileSync(done, 'utf8') !== want) fs.writeFileSync(done, want);
  }
  return { dir, files, fetched, ms: Date.now() - started };
}

/** A storage error as the non-retryable ApplicationFailure it is (undefined for any other error). */
export function checkpointFileFailure(err: unknown): ApplicationFailure | undefined {
  if (err instanceof BlobCorruptError) return ApplicationFailure.nonRetryable(err.message, FAILURE_TYPES.checkpointFileCorrupt);
  if (err instanceof BlobMissingError) return ApplicationFailure.nonRetryable(err.message, FAILURE_TYPES.checkpointFileMissing);
  if (err instanceof BlobStoreUnavailableError) return ApplicationFailure.nonRetryable(err.message, FAILURE_TYPES.blobStoreUnavailable);
  return undefined;
}

/** `storeCheckpointFiles` as an activity on pau-gpu: it runs where the trainer wrote the files. */
export function createCheckpointFileActivities(db: () => Db) {
  return {
    async storeCheckpointFiles(input: StoreCheckpointFilesInput): Promise<StoredCheckpointFiles> {
      try {
        return await storeCheckpointFiles(new BlobStore(db(), blobStoreConfig()), input);
      } catch (err) {
        throw checkpointFileFailure(err) ?? err;
      }
    },
  };
}
