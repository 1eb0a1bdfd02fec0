// The parts of check:gpu's memory step that need no GPU (checkGpu.ts runs it; bench:train takes its rollouts for
// its checkpointing comparison): the rollouts of about N tokens, the update's spec, the base it picks, and what it
// prints. The estimate itself: domain/training/updateMemory.ts.
import type { z } from 'zod';
import { GRPO_LORA } from '../../domain/training/grpo';
import type { grpoSpecSchema } from '../../domain/training/trainerProtocol';
import { formatUpdateMemory, gib, LOGPROB_CHUNK, type ModelShape, type UpdateMemoryEstimate, updateMemoryEstimate } from '../../domain/training/updateMemory';

/** The rollout length the step trains: the trainer's max_length and the length vLLM serves (8,192). */
export const MEMORY_TOKENS = 8192;

/** Tokens of a rollout's chat template, its method line and its description, besides the filler. */
const FRAME_TOKENS = 128;

/**
 * Two rollouts of one method rewarded 0 and 1 (so the update has advantages to follow), each of about `tokens`
 * tokens and at most that many: a user turn of " call" repeated (one token each in the Qwen2.5 and SmolLM2
 * vocabularies) and a one-line description. The trainer reports the exact length (longest_tokens).
 */
export function memoryRollouts(tokens: number): string {
  const filler = ' call'.repeat(Math.max(0, tokens - FRAME_TOKENS));
  const line = (i: number) =>
    JSON.stringify({
      id: `long-${i}`,
      group: 'long',
      messages: [
        { role: 'system', content: 'You probe a black-box Python method and describe it.' },
        { role: 'user', content: `Method: f(a, b). Calls so far:${filler}` },
        { role: 'assistant', content: `f(a, b) returns a times b; description ${i}.` },
      ],
      rewards: { outcome: i },
    });
  return `${line(0)}\n${line(1)}\n`;
}

export type GrpoSpecFile = z.input<typeof grpoSpecSchema> & { output_dir: string };

/** The GRPO update the step measures: one step on one rollout, GRPO's adapter (every linear layer), lr irrelevant. */
export function memoryUpdateSpec(o: {
  base: string;
  rollouts: string;
  outputDir: string;
  device: 'cuda' | 'cpu';
  tokens: number;
  gradientCheckpointing: boolean;
  steps: number;
}): GrpoSpecFile {
  return {
    base_model: o.base,
    rollouts: o.rollouts,
    output_dir: o.outputDir,
    device: o.device,
    max_length: o.tokens,
    mini_batch_size: 1,
    // two rollouts, one a step: an epoch is two steps
    ppo_epochs: Math.ceil(o.steps / 2),
    max_steps: o.steps,
    save_every: 1000,
    seed: 1,
    advantage: { mode: 'outcome' },
    lora: GRPO_LORA,
    gradient_checkpointing: o.gradientCheckpointing,
  };
}

export interface BaseShape {
  /** Registry name (local/<short> or a local entry with its own modelPath). */
  name: string;
  file: string;
  shape: ModelShape;
}

/** The largest of the bases (by parameters), or undefined when there are none. */
export function largestBase(bases: BaseShape[]): BaseShape | undefined {
  return bases.reduce<BaseShape | undefined>((best, b) => (!best || b.shape.params > best.shape.params ? b : best), undefined);
}

/** The estimate of the step on `base`: bf16 on a GPU, gradient checkpointing on (the trainer's default). */
export function memoryStepEstimate(base: BaseShape, tokens = MEMORY_TOKENS): UpdateMemoryEstimate {
  return updateMemoryEstimate({ shape: base.shape, tokens, bytes: 2, lora: GRPO_LORA, gradientCheckpointing: true, logitChunk: LOGPROB_CHUNK });
}

const billions = (n: number) => `${(n / 1e9).toFixed(2)} B`;

/** What a host without a GPU prints: the estimate, labelled as one, and the shape it comes from. */
export function memoryEstimateLine(base: BaseShape | undefined, tokens = MEMORY_TOKENS): string {
  if (!base) return 'memory step: estimate unavailable: no local base model is installed (npm run pau -- models install <name>)';
  const s = base.shape;
  return (
    `memory step (estimate from the shape, not measured: no GPU here): a LoRA update of ${base.name} (${billions(s.params)} parameters, ` +
    `${s.layers} layers, hidden ${s.hidden}, vocabulary ${s.vocab.toLocaleString('en-US')}) over ${tokens.toLocaleString('en-US')} tokens ` +
    `in bf16 with gradient checkpointing: ${formatUpdateMemory(memoryStepEstimate(base, tokens))}`
  );
}

export interface MemoryFigures {
  base: string;
  /** The rollout's tokens as the trainer counted them. */
  tokens: number;
  peakBytes: number;
  cardBytes: number | undefined;
  estimateBytes: number;
  stepS: number | null;
}

/** The measured line: the peak against the card's memory, beside the estimate. */
export function memoryMeasuredLine(m: MemoryFigures): string {
  const card = m.cardBytes ? ` of the card's ${gib(m.cardBytes)} (${((100 * m.peakBytes) / m.cardBytes).toFixed(0)} %)` : '';
  return `memory: a LoRA update of ${m.base} over ${m.tokens.toLocaleString('en-US')} tokens peaked at ${gib(m.peakBytes)}${card}; estimate ${gib(m.estimateBytes)}`;
}

/** `nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits`: MiB per line, as bytes. */
export const GPU_MEMORY_QUERY = ['--query-gpu=memory.total', '--format=csv,noheader,nounits'];
export function parseGpuMemory(stdout: string): number[] {
  return stdout
    .split('\n')
    .map((l) => Number.parseFloat(l.trim()))
    .filter((v) => Number.isFinite(v))
    .map((mib) => mib * 2 ** 20);
}

/** The UUID in an `nvidia-smi -L` line (what CUDA_VISIBLE_DEVICES and nvidia-smi --id take). */
export function gpuUuid(line: string): string | undefined {
  return /\(UUID: ([^)]+)\)/.exec(line)?.[1];
}
