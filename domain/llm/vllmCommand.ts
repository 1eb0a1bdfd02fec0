// The command line of a vLLM OpenAI-compatible server for a `vllm` registry entry (config/models.ts), and
// the request that hands it a checkpoint's LoRA directory at run time. Pure: the activity that starts the
// process (platform/models/vllm/server.ts) adds the API key to the environment.
// vLLM's documented flags: `vllm serve MODEL --enable-lora --max-lora-rank R --max-loras N`; runtime
// adapters need VLLM_ALLOW_RUNTIME_LORA_UPDATING=True and are loaded with POST /v1/load_lora_adapter
// {lora_name, lora_path} (docs.vllm.ai, features/lora, "Dynamically serving LoRA Adapters").
//
// What every server gets, because without it the pipeline's requests fail or are not sampled from the policy:
// - `--enable-auto-tool-choice --tool-call-parser hermes`: the agent sends `tools`; without a parser vLLM
//   answers HTTP 400, and Qwen2.5/Qwen3 write tool calls as Hermes `<tool_call>` blocks.
// - `--generation-config vllm`: with a Hugging Face model vLLM otherwise applies the model's
//   generation_config.json (e.g. repetition_penalty 1.05, top_k 20) to every parameter a request omits, so
//   GRPO's samples would not come from the distribution the update assumes.
// - `--reasoning-parser qwen3` for Qwen3 models: the thinking goes to `reasoning_content`, not into the
//   description the judge reads.
// - `--max-model-len` = the trainer's max_length (8,192 by default): a transcript the policy is served is
//   one the trainer can train on.

/** The trainer's default max_length (trainer/pau_trainer/protocol.py): what vLLM serves per sequence by default. */
export const TRAINER_MAX_LENGTH = 8192;

/** The tool-call format of the models this project serves (Qwen2.5, Qwen3: Hermes-style `<tool_call>` blocks). */
export const VLLM_TOOL_CALL_PARSER = 'hermes';

/** vLLM's reasoning parser for a model id, or undefined: Qwen3 thinks in `<think>` blocks (parser `qwen3`). */
export function reasoningParserFor(model: string): string | undefined {
  return /qwen-?3/i.test(model) ? 'qwen3' : undefined;
}

export interface VllmCommandOptions {
  /** A Hugging Face model id or a local directory (the base the checkpoints were trained on, unquantised). */
  model: string;
  port: number;
  maxLoraRank: number;
  maxLoras: number;
  gpuMemoryUtilization?: number;
  tensorParallelSize?: number;
  /** Default TRAINER_MAX_LENGTH. */
  maxModelLen?: number;
  /** `--max-num-seqs`: sequences the engine batches at once. */
  maxNumSeqs?: number;
  dtype?: string;
  /** `--reasoning-parser`; undefined: reasoningParserFor(model); null: none. */
  reasoningParser?: string | null;
  /** The GPUs the server may use (CUDA_VISIBLE_DEVICES), e.g. [0, 1]; undefined: every visible one. */
  gpus?: number[];
  args: string[];
  executable: string;
}

export interface VllmLaunch {
  command: string;
  args: string[];
  /** Environment added to the server's (the API key is added by the caller, never on the command line). */
  env: Record<string, string>;
}

/** `vllm serve` on loopback with LoRA enabled, runtime adapter loading allowed, tools parsed, vLLM's own sampling defaults. */
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
    '--enable-auto-tool-choice',
    '--tool-call-parser',
    VLLM_TOOL_CALL_PARSER,
    '--generation-config',
    'vllm',
    '--max-model-len',
    String(o.maxModelLen ?? TRAINER_MAX_LENGTH),
  ];
  const reasoning = o.reasoningParser === undefined ? reasoningParserFor(o.model) : o.reasoningParser;
  if (reasoning) args.push('--reasoning-parser', reasoning);
  if (o.gpuMemoryUtilization !== undefined) args.push('--gpu-memory-utilization', String(o.gpuMemoryUtilization));
  const tp = o.tensorParallelSize ?? (o.gpus && o.gpus.length > 1 ? o.gpus.length : undefined);
  if (tp !== undefined) args.push('--tensor-parallel-size', String(tp));
  if (o.maxNumSeqs !== undefined) args.push('--max-num-seqs', String(o.maxNumSeqs));
  if (o.dtype !== undefined) args.push('--dtype', o.dtype);
  args.push(...o.args);
  const env: Record<string, string> = { VLLM_ALLOW_RUNTIME_LORA_UPDATING: 'True' };
  if (o.gpus) env.CUDA_VISIBLE_DEVICES = o.gpus.join(',');
  return { command: o.executable, args, env };
}

/** The body of POST /v1/load_lora_adapter: the adapter is then a model named `name` on that server. */
export function loadLoraAdapterBody(name: string, dir: string): { lora_name: string; lora_path: string } {
  return { lora_name: name, lora_path: dir };
}
