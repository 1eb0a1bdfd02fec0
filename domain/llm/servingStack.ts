// Which serving stack answers a model: the engine and the base weights (not the adapter). A checkpoint and
// its base compared by a paired evaluation must share one, or "checkpoint − base" measures a change of
// engine, weights, tool parser and sampling defaults beside the training (docs/scale.md). Pure.

/** The fields of a resolved model spec (config/models.ts ModelSpec) that name its stack. */
export interface StackSpec {
  provider: 'openai' | 'mock' | 'local' | 'vllm';
  model: string;
  baseUrl?: string | undefined;
  modelPath?: string | undefined;
  loraModule?: { base: string } | undefined;
}

/** One line naming the engine and its base weights: `vLLM Qwen/Qwen3-8B`, `llama.cpp qwen2.5-coder-0.5b (GGUF)`. */
export function servingStackOf(spec: StackSpec): string {
  switch (spec.provider) {
    case 'vllm':
      return `vLLM ${spec.loraModule?.base ?? spec.model}${spec.baseUrl ? ` at ${spec.baseUrl}` : ''}`;
    case 'local':
      return `llama.cpp ${spec.modelPath ?? spec.model} (GGUF)`;
    case 'mock':
      return 'scripted mock';
    default:
      return `OpenAI-compatible ${spec.model}${spec.baseUrl ? ` at ${spec.baseUrl}` : ''}`;
  }
}

export interface ArmStack {
  arm: string;
  model: string;
  stack: string;
}

/** The refusal of a paired evaluation whose arms are served by different stacks (undefined: one stack, or allowed). */
export function mixedStacksRefusal(arms: readonly ArmStack[], allowed: boolean): string | undefined {
  if (allowed || new Set(arms.map((a) => a.stack)).size <= 1) return undefined;
  return `the paired evaluation's arms are served by different stacks (${arms.map((a) => `${a.arm} ${a.model}: ${a.stack}`).join('; ')}): the difference would measure the change of engine and weights beside the training. Serve both by one vllm entry (vllm.loraBases lists the base), or pass --allow-mixed-stacks to compare them anyway`;
}
