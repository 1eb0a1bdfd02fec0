// The command line of a vLLM OpenAI-compatible server for a `vllm` registry entry (config/models.ts), and
// the request that hands it a checkpoint's LoRA directory at run time. Pure: the activity that starts the
// process (platform/models/vllm/server.ts) adds the API key to the environment.
// vLLM's documented flags: `vllm serve MODEL --enable-lora --max-lora-rank R --max-loras N`; runtime
// adapters need VLLM_ALLOW_RUNTIME_LORA_UPDATING=True and are loaded with POST /v1/load_lora_adapter
// {lora_name, lora_path} (docs.vllm.ai, features/lora, "Dynamically serving LoRA Adapters").

export interface VllmCommandOptions {
  /** A Hugging Face model id or a local directory (the base the checkpoints were trained on, unquantised). */
  model: string;
  port: number;
  maxLoraRank: number;
  maxLoras: number;
  gpuMemoryUtilization?: number;
  tensorParallelSize?: number;
  maxModelLen?: number;
  dtype?: string;
  args: string[];
  executable: string;
}

export interface VllmLaunch {
  command: string;
  args: string[];
  /** Environment added to the server's (the API key is added by the caller, never on the command line). */
  env: Record<string, string>;
}

/** `vllm serve` on loopback with LoRA enabled and runtime adapter loading allowed. */
export function vllmCommand(o: VllmCommandOptions): VllmLaunch {
  const args = [
    'serve',
    o.model,
    '--host',
    '127.0.0.1',
    '--port',
    String(o.port),
    '--enable-lora',
    '--max-lora-rank',
    String(o.maxLoraRank),
    '--max-loras',
    String(o.maxLoras),
  ];
  if (o.gpuMemoryUtilization !== undefined) args.push('--gpu-memory-utilization', String(o.gpuMemoryUtilization));
  if (o.tensorParallelSize !== undefined) args.push('--tensor-parallel-size', String(o.tensorParallelSize));
  if (o.maxModelLen !== undefined) args.push('--max-model-len', String(o.maxModelLen));
  if (o.dtype !== undefined) args.push('--dtype', o.dtype);
  args.push(...o.args);
  return { command: o.executable, args, env: { VLLM_ALLOW_RUNTIME_LORA_UPDATING: 'True' } };
}

/** The body of POST /v1/load_lora_adapter: the adapter is then a model named `name` on that server. */
export function loadLoraAdapterBody(name: string, dir: string): { lora_name: string; lora_path: string } {
  return { lora_name: name, lora_path: dir };
}
