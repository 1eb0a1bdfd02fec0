// How much device memory a LoRA update of a decoder-only base needs, estimated from the base's shape: what
// check:gpu prints beside the peak it measures, and instead of it where there is no GPU. The terms follow what
// the trainer keeps (trainer/pau_trainer/job.py, core_algos.head_logprobs; docs/trainer.md, "Memory"):
//
//   weights      P x b                                  the frozen base (b = 2 bytes in bf16, 4 in fp32)
//   lora         P_lora x 16                            LoRA weights, gradients and Adam's two moments, fp32
//   activations  b x N x (L x h + 2 x a)                checkpointed: each layer's input, and one layer's
//                b x N x (L + 1) x a                    activations again (and their gradients) in the backward
//                                                       pass; not checkpointed: every layer's, plus one in flight
//   logits       C x V x (2b + 8)                       one chunk of C positions: the logits, their fp32 copy,
//                                                       and the gradients of both
//
// with N tokens, L layers, hidden size h, vocabulary V, and a = 4h + 2 q + 4 kv + 4 I elements a layer keeps per
// token (the two norms' inputs and outputs; the query and the attention's output; keys and values before and after
// the rotary embedding; the MLP's gate, up, their product and the down projection's input), q = heads x head_dim,
// kv = kv_heads x head_dim, I the MLP's width. P_lora = L x r x (sum over the LoRA targets of in + out).
// It leaves out the CUDA context and the allocator's slack: a floor to compare a measured peak with.
import type { GgufHeader, GgufValue } from '../llm/ggufHeader';

export interface ModelShape {
  /** Parameters of the base (every tensor's elements). */
  params: number;
  layers: number;
  hidden: number;
  /** The MLP's width (feed_forward_length). */
  intermediate: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  vocab: number;
}

export interface UpdateMemoryInput {
  shape: ModelShape;
  /** Tokens of the longest sequence a step trains. */
  tokens: number;
  /** Bytes per element of the frozen base and its activations: 2 (bf16, CUDA), 4 (fp32, CPU). */
  bytes: 2 | 4;
  lora: { rank: number; targets: readonly string[] };
  gradientCheckpointing: boolean;
  /** Positions whose logits exist at once (trainer core_algos.LOGPROB_CHUNK). */
  logitChunk: number;
}

export interface UpdateMemoryEstimate {
  weights: number;
  lora: number;
  activations: number;
  logits: number;
  total: number;
}

/** The trainer's core_algos.LOGPROB_CHUNK. */
export const LOGPROB_CHUNK = 1024;

/** (in, out) of each LoRA target of a llama/qwen decoder layer; an unknown target counts as nothing. */
function targetSize(shape: ModelShape, target: string): number {
  const q = shape.heads * shape.headDim;
  const kv = shape.kvHeads * shape.headDim;
  const sizes: Record<string, number> = {
    q_proj: shape.hidden + q,
    k_proj: shape.hidden + kv,
    v_proj: shape.hidden + kv,
    o_proj: q + shape.hidden,
    gate_proj: shape.hidden + shape.intermediate,
    up_proj: shape.hidden + shape.intermediate,
    down_proj: shape.intermediate + shape.hidden,
  };
  return sizes[target] ?? 0;
}

export function loraParams(shape: ModelShape, lora: UpdateMemoryInput['lora']): number {
  return shape.layers * lora.rank * lora.targets.reduce((sum, t) => sum + targetSize(shape, t), 0);
}

/** Elements one decoder layer keeps per token for the backward pass (a in the formula above). */
export function layerActivationsPerToken(shape: ModelShape): number {
  const q = shape.heads * shape.headDim;
  const kv = shape.kvHeads * shape.headDim;
  return 4 * shape.hidden + 2 * q + 4 * kv + 4 * shape.intermediate;
}

export function updateMemoryEstimate(input: UpdateMemoryInput): UpdateMemoryEstimate {
  const { shape, tokens, bytes } = input;
  const a = layerActivationsPerToken(shape);
  const weights = shape.params * bytes;
  const lora = loraParams(shape, input.lora) * 16;
  const activations = input.gradientCheckpointing ? bytes * tokens * (shape.layers * shape.hidden + 2 * a) : bytes * tokens * (shape.layers + 1) * a;
  const logits = Math.min(input.logitChunk, tokens) * shape.vocab * (2 * bytes + 8);
  return { weights, lora, activations, logits, total: weights + lora + activations + logits };
}

const GIB = 2 ** 30;
export const gib = (bytes: number) => `${(bytes / GIB).toFixed(1)} GiB`;

/** One line: the total and its terms. */
export function formatUpdateMemory(e: UpdateMemoryEstimate): string {
  return `${gib(e.total)} (weights ${gib(e.weights)} + LoRA with its gradients and Adam state ${gib(e.lora)} + activations ${gib(e.activations)} + one chunk of logits ${gib(e.logits)})`;
}

const asNumber = (v: GgufValue | undefined): number | undefined => (typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : undefined);

/** A decoder's shape from its GGUF header (llama.cpp's `<arch>.*` keys; the parameters counted from its tensors). */
export function shapeOfGguf(header: GgufHeader): ModelShape {
  const arch = header.metadata.get('general.architecture');
  if (typeof arch !== 'string') throw new Error('the GGUF header has no general.architecture');
  const key = (k: string) => asNumber(header.metadata.get(`${arch}.${k}`));
  const layers = key('block_count');
  const hidden = key('embedding_length');
  const intermediate = key('feed_forward_length');
  const heads = key('attention.head_count');
  if (layers === undefined || hidden === undefined || intermediate === undefined || heads === undefined)
    throw new Error(`the GGUF header lacks ${arch}.block_count, embedding_length, feed_forward_length or attention.head_count`);
  const tokens = header.metadata.get('tokenizer.ggml.tokens');
  const embedding = header.tensors.find((t) => t.name === 'token_embd.weight');
  const vocab = Array.isArray(tokens) ? tokens.length : (embedding?.dims[1] ?? 0);
  if (!vocab) throw new Error('the GGUF header has neither tokenizer.ggml.tokens nor token_embd.weight');
  return {
    params: header.tensors.reduce((sum, t) => sum + t.dims.reduce((p, d) => p * d, 1), 0),
    layers,
    hidden,
    intermediate,
    heads,
    kvHeads: key('attention.head_count_kv') ?? heads,
    headDim: key('attention.key_length') ?? hidden / heads,
    vocab,
  };
}
