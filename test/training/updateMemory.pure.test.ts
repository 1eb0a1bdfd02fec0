// The memory estimate of a LoRA update (domain/training/updateMemory.ts) and the GGUF header it reads a base's
// shape from (domain/llm/ggufHeader.ts), on a GGUF written here byte by byte.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GgufInvalid, GgufTruncated, parseGgufHeader } from '../../domain/llm/ggufHeader';
import { GRPO_LORA } from '../../domain/training/grpo';
import {
  formatUpdateMemory,
  LOGPROB_CHUNK,
  layerActivationsPerToken,
  loraParams,
  type ModelShape,
  shapeOfGguf,
  updateMemoryEstimate,
} from '../../domain/training/updateMemory';

/** A GGUF v3 header: metadata as [key, type, value] (types 4 u32, 8 string, 9 array of strings), tensors as [name, dims]. */
function gguf(metadata: [string, 4 | 8 | 9, number | string | string[]][], tensors: [string, number[]][]): Uint8Array {
  const parts: Buffer[] = [];
  const u32 = (v: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    parts.push(b);
  };
  const u64 = (v: number) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(v));
    parts.push(b);
  };
  const str = (s: string) => {
    u64(Buffer.byteLength(s));
    parts.push(Buffer.from(s));
  };
  parts.push(Buffer.from('GGUF'));
  u32(3);
  u64(tensors.length);
  u64(metadata.length);
  for (const [key, type, value] of metadata) {
    str(key);
    u32(type);
    if (type === 4) u32(value as number);
    else if (type === 8) str(value as string);
    else {
      u32(8);
      u64((value as string[]).length);
      for (const s of value as string[]) str(s);
    }
  }
  for (const [name, dims] of tensors) {
    str(name);
    u32(dims.length);
    for (const d of dims) u64(d);
    u32(0);
    u64(0);
  }
  return new Uint8Array(Buffer.concat(parts));
}

const TINY = gguf(
  [
    ['general.architecture', 8, 'qwen2'],
    ['qwen2.block_count', 4, 2],
    ['qwen2.embedding_length', 4, 8],
    ['qwen2.feed_forward_length', 4, 24],
    ['qwen2.attention.head_count', 4, 4],
    ['qwen2.attention.head_count_kv', 4, 2],
    ['tokenizer.ggml.tokens', 9, ['a', 'b', 'c', 'd', 'e']],
  ],
  [
    ['token_embd.weight', [8, 5]],
    ['blk.0.attn_q.weight', [8, 8]],
    ['blk.0.attn_k.weight', [8, 4]],
    ['output_norm.weight', [8]],
  ],
);

describe('the GGUF header', () => {
  it('reads the metadata and the tensors, and the shape from them', () => {
    const h = parseGgufHeader(TINY);
    expect(h.version).toBe(3);
    expect(h.metadata.get('qwen2.block_count')).toBe(2);
    expect(h.tensors.map((t) => t.name)).toEqual(['token_embd.weight', 'blk.0.attn_q.weight', 'blk.0.attn_k.weight', 'output_norm.weight']);
    expect(shapeOfGguf(h)).toEqual({
      params: 40 + 64 + 32 + 8,
      layers: 2,
      hidden: 8,
      intermediate: 24,
      heads: 4,
      kvHeads: 2,
      headDim: 2, // no key_length: hidden / heads
      vocab: 5,
    });
  });

  it('says when its bytes end before the header does, and refuses what is not a GGUF', () => {
    for (const cut of [3, 20, 100, TINY.length - 1]) expect(() => parseGgufHeader(TINY.subarray(0, cut))).toThrow(GgufTruncated);
    const other = TINY.slice();
    other[0] = 0x58;
    expect(() => parseGgufHeader(other)).toThrow(GgufInvalid);
    expect(() => shapeOfGguf(parseGgufHeader(gguf([['general.architecture', 8, 'qwen2']], [])))).toThrow(/lacks qwen2.block_count/);
  });
});

// Shapes from the models' config.json files (Hugging Face); parameters as published.
const LLAMA3_8B: ModelShape = { params: 8_030_261_248, layers: 32, hidden: 4096, intermediate: 14336, heads: 32, kvHeads: 8, headDim: 128, vocab: 128256 };
const QWEN3_8B: ModelShape = { params: 8_190_735_360, layers: 36, hidden: 4096, intermediate: 12288, heads: 32, kvHeads: 8, headDim: 128, vocab: 151936 };

describe('the memory estimate of a LoRA update', () => {
  it('counts the LoRA parameters peft makes (Llama-3-8B, rank 8 on every linear layer: 20,971,520)', () => {
    expect(loraParams(LLAMA3_8B, GRPO_LORA)).toBe(20_971_520);
    expect(loraParams(LLAMA3_8B, { rank: 8, targets: ['q_proj', 'v_proj'] })).toBe(32 * 8 * (8192 + 5120));
    expect(loraParams(LLAMA3_8B, { rank: 8, targets: ['lm_head'] })).toBe(0);
  });

  it('sums its terms, as the formula says', () => {
    const input = { shape: QWEN3_8B, tokens: 8192, bytes: 2, lora: GRPO_LORA, gradientCheckpointing: true, logitChunk: 1024 } as const;
    const e = updateMemoryEstimate(input);
    const a = layerActivationsPerToken(QWEN3_8B);
    expect(a).toBe(4 * 4096 + 2 * 4096 + 4 * 1024 + 4 * 12288);
    expect(e.weights).toBe(QWEN3_8B.params * 2);
    expect(e.lora).toBe(loraParams(QWEN3_8B, GRPO_LORA) * 16);
    expect(e.activations).toBe(2 * 8192 * (36 * 4096 + 2 * a));
    expect(e.logits).toBe(1024 * 151936 * 12);
    expect(e.total).toBe(e.weights + e.lora + e.activations + e.logits);
    expect(formatUpdateMemory(e)).toMatch(/^\d+\.\d GiB \(weights 15\.3 GiB \+ LoRA .* \+ activations \d+\.\d GiB \+ one chunk of logits 1\.7 GiB\)$/);
  });

  it("puts an 8B update at 8k tokens on an 80 GB card with checkpointing, its activations near the review's 4 GB", () => {
    const at = (gradientCheckpointing: boolean) =>
      updateMemoryEstimate({ shape: QWEN3_8B, tokens: 8192, bytes: 2, lora: GRPO_LORA, gradientCheckpointing, logitChunk: LOGPROB_CHUNK });
    const on = at(true);
    const off = at(false);
    expect(on.activations / 2 ** 30).toBeGreaterThan(3);
    expect(on.activations / 2 ** 30).toBeLessThan(6);
    expect(on.total).toBeLessThan(80e9 * 0.5);
    expect(off.activations).toBeGreaterThan(8 * on.activations);
    // the logits are one chunk's whatever the length; a sequence shorter than a chunk has fewer
    expect(
      updateMemoryEstimate({ ...{ shape: QWEN3_8B, bytes: 2, lora: GRPO_LORA, gradientCheckpointing: true, logitChunk: 1024 }, tokens: 32768 }).logits,
    ).toBe(on.logits);
    expect(updateMemoryEstimate({ shape: QWEN3_8B, tokens: 512, bytes: 2, lora: GRPO_LORA, gradientCheckpointing: true, logitChunk: 1024 }).logits).toBe(
      on.logits / 2,
    );
  });

  it('uses the chunk the trainer uses', () => {
    const py = fs.readFileSync(path.join(import.meta.dirname, '../../trainer/pau_trainer/core_algos.py'), 'utf8');
    expect(Number(/^LOGPROB_CHUNK = (\d+)$/m.exec(py)?.[1])).toBe(LOGPROB_CHUNK);
  });
});
