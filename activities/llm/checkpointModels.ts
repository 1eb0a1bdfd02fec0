// `ckpt:<id>` as a model name: resolved from the `checkpoints` table on every call (a query by primary
// key), so a worker that was running when the checkpoint was registered serves it without a restart.
// A checkpoint is served as its base model plus its LoRA adapter (docs/checkpoints.md): by the
// vLLM entry that lists its base in `vllm.loraBases` when there is one (a GPU host), else by llama.cpp
// with the GGUF export. A base such an entry lists is served by it too (no adapter), so both arms of a
// checkpoint-vs-base comparison share one stack. Checkpoints whose files were stored (docs/checkpoints.md, "Checkpoints that travel")
// are served from this host's checkpoint cache, fetched and verified by hash on first use; older ones from
// the directory recorded at registration.
import path from 'node:path';
import { checkpointIdOf } from '../../domain/training/checkpointIds';
import { CHECKPOINT_FILE_NAMES } from '../../domain/training/checkpointRecord';
import { env } from '../../config/env';
import { fnv1a } from '../../domain/common/hash';
import { ModelConfigError, models, type ModelRegistry, type ModelSpec } from '../../config/models';
import type { Db } from '../../db/client';
import { type Checkpoint, loadCheckpoint } from '../../db/queries/checkpoints';
import { type MaterializeOptions, materializeCheckpoint } from '../training/checkpointFiles';

/** A GGUF adapter on this host: the fetched copy (with its sha256), or the path recorded at registration. */
export interface LocalAdapter {
  path: string;
  sha256?: string;
}

/** The registry entry a checkpoint is served with by llama.cpp, given its base's entry. */
export function checkpointSpec(name: string, base: ModelSpec, row: Checkpoint, adapter?: LocalAdapter): ModelSpec {
  // A scripted base (tests of the registry and of resolution): the mock has no weights for an adapter to
  // change, so the checkpoint answers as its base does; it is still a distinct model name in every record.
  if (base.provider === 'mock') return { ...base, name };
  if (base.provider !== 'local') {
    throw new ModelConfigError(
      `model ${name}: checkpoint ${row.id} has base ${base.name} (provider ${base.provider}); a LoRA checkpoint is served on a local (llama.cpp) base, or by a vllm entry that lists ${base.name} in vllm.loraBases`,
    );
  }
  const gguf = adapter?.path ?? row.ggufPath;
  if (!gguf) throw new ModelConfigError(`model ${name}: checkpoint ${row.id} has no GGUF adapter (its export did not run)`);
  // The base's server settings plus the adapter, on a port of its own, so the base keeps serving unchanged
  // beside it. Two checkpoints whose ports collide take turns (the server restarts with the other adapter).
  return {
    ...base,
    name,
    loraAdapters: [gguf],
    port: checkpointPort(row.id),
    ...(adapter?.sha256 ? { adapterSha256: adapter.sha256 } : {}),
    // The GGUF is the export of this adapter (registered together; a fetched copy is verified by its hash).
    ...(row.adapterSha256 ? { trainedAdapterSha256: row.adapterSha256 } : {}),
  };
}

/** The registry entry a checkpoint is served with by vLLM: the server's entry, the adapter as a LoRA module. */
export function vllmCheckpointSpec(name: string, server: ModelSpec, loraDir: string, adapterSha256: string): ModelSpec {
  // vLLM loads the trained adapter itself: its hash is the trained one (a directory path when none is known).
  return { ...server, name, model: name, loraModule: { name, path: loraDir, base: server.model }, adapterSha256, trainedAdapterSha256: adapterSha256 };
}

/**
 * A base served by its vLLM entry (the entry lists it in `vllm.loraBases`): the server's entry under the
 * base's name, no adapter, so the base, the critic and the policy at epoch 1 share the checkpoints' engine,
 * weights and tool parser (docs/scale.md).
 */
export function vllmBaseSpec(name: string, server: ModelSpec): ModelSpec {
  return { ...server, name };
}

/** A loopback port per checkpoint: PAU_MODEL_PORT_BASE + 100 + (FNV-1a of the id mod 400). */
export function checkpointPort(id: string, portBase = env().PAU_MODEL_PORT_BASE): number {
  return portBase + 100 + (fnv1a(id) % 400);
}

export interface ResolveOptions extends MaterializeOptions {
  registry?: ModelRegistry;
}

/** A model by name: registry entries, `mock-<policy>`, and `ckpt:<id>` from Postgres. */
export async function resolveModel(name: string, db: Db, opts: ResolveOptions = {}): Promise<ModelSpec> {
  const registry = opts.registry ?? models();
  const id = checkpointIdOf(name);
  if (id === undefined) {
    const server = registry.vllmServerFor(name);
    return server ? vllmBaseSpec(name, server) : registry.get(name);
  }
  const row = await loadCheckpoint(db, id);
  if (!row) throw new ModelConfigError(`unknown model ${JSON.stringify(name)}: no checkpoint ${JSON.stringify(id)} is registered`);
  if (!row.baseModel) throw new ModelConfigError(`model ${name}: checkpoint ${id} has no base model recorded`);
  const base = registry.get(row.baseModel);
  const fetchOpts: MaterializeOptions = { ...(opts.cacheDir ? { cacheDir: opts.cacheDir } : {}), ...(opts.store ? { store: opts.store } : {}) };

  const server = registry.vllmServerFor(row.baseModel);
  if (server) {
    // vLLM loads the peft directory (adapter_model.safetensors + adapter_config.json) from this host's cache.
    const local = await materializeCheckpoint(db, id, { ...fetchOpts, names: [CHECKPOINT_FILE_NAMES.adapter, CHECKPOINT_FILE_NAMES.config] });
    if (local) return vllmCheckpointSpec(name, server, local.dir, local.files.find((f) => f.name === CHECKPOINT_FILE_NAMES.adapter)!.sha256);
    return vllmCheckpointSpec(name, server, row.path, row.adapterSha256 ?? row.path);
  }
  if (base.provider !== 'local') return checkpointSpec(name, base, row);
  const local = row.ggufPath ? await materializeCheckpoint(db, id, { ...fetchOpts, names: [CHECKPOINT_FILE_NAMES.gguf] }) : undefined;
  const gguf = local?.files[0];
  return checkpointSpec(name, base, row, gguf && local ? { path: path.join(local.dir, gguf.name), sha256: gguf.sha256 } : undefined);
}
