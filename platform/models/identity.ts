// What a model answers with, by content where it can be: the llm_calls cache keys a request by the endpoint's
// identity (a local model by its GGUF's sha256 and adapters, a checkpoint by its adapter's content), and a
// judge card shipped with the benchmark is keyed by the weights alone (domain/judge/shippedCard.ts).
import type { ModelSpec } from '../../config/models';
import { planFor } from './local/server';

/** The identity the llm_calls cache keys a request by: the same weights answer the same on every host. */
export function endpointIdentity(spec: ModelSpec): string | undefined {
  if (spec.provider === 'mock') return 'pau-scripted-mock';
  if (spec.provider === 'local') {
    const plan = planFor(spec);
    // A stored checkpoint's adapter by its content (the same on every host that fetched it); others by path.
    const lora = spec.adapterSha256 ? `sha256:${spec.adapterSha256}` : plan.lora.join(',');
    return `local:${plan.sha256 ?? plan.modelPath}${lora ? `+lora:${lora}` : ''}`;
  }
  // vLLM: its weights by the model it serves, a checkpoint's adapter by its content.
  if (spec.provider === 'vllm') return `vllm:${spec.loraModule?.base ?? spec.model}${spec.adapterSha256 ? `+lora:sha256:${spec.adapterSha256}` : ''}`;
  return spec.baseUrl;
}

/**
 * The weights of a model as another machine can check them, or why there is no such thing: a local GGUF by its
 * sha256 (no adapter), the scripted mock by its policy. A remote API's weights can change under its name.
 */
export function weightsIdentity(spec: ModelSpec): { weights: string } | { why: string } {
  if (spec.provider === 'mock') return { weights: `pau-scripted-mock:${spec.model}` };
  if (spec.provider === 'local') {
    const plan = planFor(spec);
    if (spec.adapterSha256 || plan.lora.length > 0) return { why: `${spec.name} serves a LoRA adapter` };
    if (!plan.sha256) return { why: `${spec.name}'s model file has no sha256 in the registry (add "sha256" to its entry)` };
    return { weights: `local:${plan.sha256}` };
  }
  return { why: `${spec.name} is served by ${spec.provider === 'vllm' ? 'vLLM' : 'a remote API'}: its weights have no hash here` };
}
