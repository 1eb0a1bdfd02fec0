// Sampled-with = trained-on (docs/training.md): every model turn of an episode records the adapter that
// served it, as the serving side resolved the model ("base", or a trained adapter by the sha256 of its
// adapter_model.safetensors, whatever form the engine loads); a GRPO update computes its old log-probs with
// one adapter and trains only a batch whose every rollout was sampled with that adapter alone. Pure.
import { z } from 'zod';

/** No adapter: the base model's own weights (epoch 1's policy, and a fresh adapter, whose LoRA B is zero). */
export const BASE_ADAPTER = 'base';

/** The patch (workflows' `patched()`) under which a GRPO epoch's update checks what sampled its rollouts. */
export const SAMPLED_WITH_PATCH = 'grpo-sampled-with';

const SHA256 = /^[0-9a-f]{64}$/;

/**
 * What sampled a completion: `base`, the trained adapter's sha256, or, for an adapter whose trained file
 * has no known hash (a registry entry's own `lora` files, a checkpoint registered without one),
 * `unhashed:<what is served>`, which no trainer's adapter matches.
 */
export function sampledWithLabel(adapter: { trainedSha256?: string | null; served?: readonly string[] }): string {
  if (adapter.trainedSha256 && SHA256.test(adapter.trainedSha256)) return adapter.trainedSha256;
  const served = adapter.served ?? [];
  if (adapter.trainedSha256) return `unhashed:${adapter.trainedSha256}`;
  return served.length > 0 ? `unhashed:${served.join(',')}` : BASE_ADAPTER;
}

/** One rollout of a batch and the adapters that served its model turns (each once, in the order first used). */
export const sampledRolloutSchema = z.strictObject({ id: z.string().min(1), sampledWith: z.array(z.string().min(1)) });
export type SampledRollout = z.infer<typeof sampledRolloutSchema>;

/**
 * Why a GRPO update must not train this batch with old log-probs computed by `trainedWith` (`base` or
 * the init adapter's sha256), or null when every rollout was sampled with `trainedWith` and nothing else.
 * A rollout with no record is refused too: its sampler is unknown. The message names both hashes.
 */
export function sampledWithRefusal(rollouts: readonly { id: string; sampledWith: readonly string[] }[], trainedWith: string): string | null {
  const byAdapter = new Map<string, string[]>();
  const unrecorded: string[] = [];
  for (const r of rollouts) {
    if (r.sampledWith.length === 0) unrecorded.push(r.id);
    for (const a of new Set(r.sampledWith)) if (a !== trainedWith) byAdapter.set(a, [...(byAdapter.get(a) ?? []), r.id]);
  }
  if (byAdapter.size === 0 && unrecorded.length === 0) return null;
  const off = new Set([...byAdapter.values()].flat().concat(unrecorded));
  const ids = (xs: readonly string[]) => (xs.length <= 3 ? xs.join(', ') : `${xs.slice(0, 3).join(', ')} and ${xs.length - 3} more`);
  const parts = [
    ...[...byAdapter].map(([a, xs]) => `${xs.length} sampled with ${a} (${ids(xs)})`),
    ...(unrecorded.length > 0 ? [`${unrecorded.length} with no record of what sampled them (${ids(unrecorded)})`] : []),
  ];
  return (
    `${off.size} of ${rollouts.length} rollouts were not sampled with the adapter the update computes old log-probs with (${trainedWith}): ` +
    `${parts.join('; ')}. Their ratio and KL would be those of another policy: the batch is not trained (docs/training.md, "Sampled-with = trained-on")`
  );
}
