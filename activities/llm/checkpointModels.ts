// `ckpt:<id>` as a model name: resolved from the `checkpoints` table on every call (a query by primary
// key), so a worker that was running when the checkpoint was registered serves it without a restart.
// A checkpoint is served as its base model plus its LoRA adapter (docs/training.md, "Serving").
import { checkpointIdOf } from '../../domain/training/checkpointIds';
import { env } from '../../config/env';
import { ModelConfigError, models, type ModelSpec } from '../../config/models';
import type { Db } from '../../db/client';
import { type Checkpoint, loadCheckpoint } from '../training/checkpoints';

/** The registry entry a checkpoint is served with, given its base's entry. */
export function checkpointSpec(name: string, base: ModelSpec, row: Checkpoint): ModelSpec {
  // A scripted base (tests of the registry and of resolution): the mock has no weights for an adapter to
  // change, so the checkpoint answers as its base does; it is still a distinct model name in every record.
  if (base.provider === 'mock') return { ...base, name };
  if (base.provider !== 'local') {
    throw new ModelConfigError(
      `model ${name}: checkpoint ${row.id} has base ${base.name} (provider ${base.provider}); a LoRA checkpoint is served on a local (llama.cpp) base only`,
    );
  }
  if (!row.ggufPath) throw new ModelConfigError(`model ${name}: checkpoint ${row.id} has no GGUF adapter (its export did not run)`);
  // The base's server settings plus the adapter, on a port of its own, so the base keeps serving unchanged
  // beside it. Two checkpoints whose ports collide take turns (the server restarts with the other adapter).
  return { ...base, name, loraAdapters: [row.ggufPath], port: checkpointPort(row.id) };
}

/** A loopback port per checkpoint: PAU_MODEL_PORT_BASE + 100 + (FNV-1a of the id mod 400). */
export function checkpointPort(id: string, portBase = env().PAU_MODEL_PORT_BASE): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return portBase + 100 + (h % 400);
}

/** A model by name: registry entries, `mock-<policy>`, and `ckpt:<id>` from Postgres. */
export async function resolveModel(name: string, db: Db): Promise<ModelSpec> {
  const id = checkpointIdOf(name);
  if (id === undefined) return models().get(name);
  const row = await loadCheckpoint(db, id);
  if (!row) throw new ModelConfigError(`unknown model ${JSON.stringify(name)}: no checkpoint ${JSON.stringify(id)} is registered`);
  if (!row.baseModel) throw new ModelConfigError(`model ${name}: checkpoint ${id} has no base model recorded`);
  return checkpointSpec(name, models().get(row.baseModel), row);
}
