// check:gpu's parts that need no GPU (harness/gpu/gpuCheck.ts): arguments, the GPU count (nvidia-smi +
// CUDA_VISIBLE_DEVICES), what a host lacks (driver for the trainer's CUDA, bf16), the plan, what fails the
// check, and the figures table. The script itself on a host without CUDA: gpuCheck.test.ts.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../scripts/lib/args';
import {
  checkFailures,
  formatFigures,
  GPU_CHECK_EXIT,
  gpuCheckPlan,
  hostLacks,
  lossGap,
  parseGpuCheckArgs,
  parseGpuQuery,
  processesOf,
  sftBatch,
  trainerCudaOf,
  visibleGpus,
} from '../../harness/gpu/gpuCheck';
import {
  type BaseShape,
  gpuUuid,
  largestBase,
  MEMORY_TOKENS,
  memoryEstimateLine,
  memoryMeasuredLine,
  memoryRollouts,
  memoryStepEstimate,
  memoryUpdateSpec,
  parseGpuMemory,
} from '../../harness/gpu/memoryStep';
import { GRPO_LORA } from '../../domain/training/grpo';
import { trainerLineSchema, trainerSpecFileSchemas } from '../../domain/training/trainerProtocol';
import { formatUpdateMemory, type ModelShape } from '../../domain/training/updateMemory';

const SMI = [
  'GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-aaa)',
  'GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-bbb)',
  'GPU 2: NVIDIA H100 80GB HBM3 (UUID: GPU-ccc)',
].join('\n');

describe('check:gpu arguments and plan', () => {
  it('parses its options and refuses bad ones with a specific message', () => {
    expect(parseGpuCheckArgs([])).toMatchObject({ model: 'qwen2.5-coder-0.5b', 'cpu-threads': 8 });
    expect(parseGpuCheckArgs(['--processes', '4', '--model', 'smollm2-135m', '--skip-episode'])).toMatchObject({
      processes: 4,
      model: 'smollm2-135m',
      'skip-episode': true,
    });
    expect(() => parseGpuCheckArgs(['--processes', '0'])).toThrow(/--processes: Too small/);
    expect(() => parseGpuCheckArgs(['--model', 'qwen3-8b'])).toThrow(UsageError);
    expect(() => parseGpuCheckArgs(['--gpus', '2'])).toThrow(/Unknown option '--gpus'/);
  });

  it('counts the GPUs CUDA will see', () => {
    expect(visibleGpus(SMI, undefined)).toHaveLength(3);
    expect(visibleGpus(SMI, '2,0').map((g) => g.slice(0, 5))).toEqual(['GPU 2', 'GPU 0']);
    expect(visibleGpus(SMI, 'GPU-bbb')).toHaveLength(1);
    expect(visibleGpus(SMI, '')).toEqual([]);
    expect(visibleGpus(SMI, '-1')).toEqual([]);
    expect(visibleGpus(SMI, '0,7,1')).toHaveLength(1); // CUDA stops at the first invalid entry
    expect(visibleGpus('No devices were found', undefined)).toEqual([]);
  });

  it('plans the steps GRPO runs: host first, bf16 asserted, the gradient compared, runtime LoRA through the registry, a tool episode', () => {
    const args = parseGpuCheckArgs([]);
    const gpus = visibleGpus(SMI, undefined);
    expect(processesOf({ args, gpus })).toBe(3);
    expect(processesOf({ args: parseGpuCheckArgs(['--processes', '2']), gpus })).toBe(2);
    const plan = gpuCheckPlan({ args, gpus });
    expect(plan).toHaveLength(13);
    expect(plan[0]).toMatch(/^ 1\. host: NVIDIA driver new enough for the trainer's CUDA .* bf16 \(compute capability >= 8\.0\).*exit 4/);
    expect(plan[3]).toContain('3 processes (PAU_TRAINER_PROCESSES=3: torchrun + DDP over NCCL), batch 6 conversations; the trainer must report dtype bfloat16');
    expect(plan[6]).toMatch(/gradient norm \(before clipping\) within 5 %/);
    expect(plan[7]).toMatch(
      /^ 8\. memory: a LoRA update \(rank 8, every linear layer, gradient checkpointing on\) of the largest installed base .* over an 8,192-token rollout.*against the card's.*estimate/,
    );
    expect(plan[9]).toMatch(
      /registry's vllm kind: a models file entry "gpu-check-vllm" serving local\/qwen2\.5-coder-0\.5b.*--tool-call-parser hermes --generation-config vllm --max-model-len 8192/,
    );
    expect(plan[10]).toMatch(/loaded at run time as LoRA module "gpu-check" \(POST \/v1\/load_lora_adapter.*with a tool/);
    expect(plan[11]).toMatch(/one tool episode: .*`pau bench run --models local\/qwen2\.5-coder-0\.5b --limit 1 --judge off`.*same vLLM entry/);
    expect(gpuCheckPlan({ args: parseGpuCheckArgs(['--skip-episode']), gpus: [] })[3]).toContain('1 process (PAU_TRAINER_PROCESSES=1: no torchrun)');
    expect(gpuCheckPlan({ args: parseGpuCheckArgs(['--skip-episode']), gpus })[11]).toContain('skipped');
    expect(sftBatch(8)).toBe(16);
  });
});

describe('check:gpu: what a host lacks, in one line', () => {
  const h200 = parseGpuQuery('580.82.07, 9.0, NVIDIA H200\n580.82.07, 9.0, NVIDIA H200\n');
  it('reads nvidia-smi and the trainer’s CUDA', () => {
    expect(h200).toEqual([
      { driver: '580.82.07', computeCap: '9.0', name: 'NVIDIA H200' },
      { driver: '580.82.07', computeCap: '9.0', name: 'NVIDIA H200' },
    ]);
    expect(trainerCudaOf('torch==2.15.0\nnvidia-cuda-runtime==13.2.86\n')).toBe('13.2');
    expect(trainerCudaOf('nvidia-cuda-runtime-cu12==12.8.90\n')).toBe('12.8');
    expect(trainerCudaOf('torch==2.15.0\n')).toBeUndefined();
  });

  it('a new driver and bf16: nothing lacking; an old driver or a pre-Ampere GPU: one line naming each', () => {
    expect(hostLacks(h200, '13.2')).toBeUndefined();
    expect(hostLacks(parseGpuQuery('575.51.03, 9.0, NVIDIA H100'), '13.2')).toBe(
      "check:gpu: this host lacks NVIDIA driver 580.65.06 or newer for the trainer's CUDA 13.2 (has 575.51.03); nothing was run (exit 4)",
    );
    expect(hostLacks(parseGpuQuery('580.65.06, 9.0, NVIDIA H100'), '13.2')).toBeUndefined(); // the minimum itself
    expect(hostLacks(parseGpuQuery('550.54.15, 7.5, Tesla T4'), '12.8')).toBe(
      'check:gpu: this host lacks bf16: compute capability 8.0 or newer (Tesla T4 7.5: training would run in fp32); nothing was run (exit 4)',
    );
    expect(hostLacks(parseGpuQuery('520.1.1, 7.0, Tesla V100'), '12.1')).toMatch(/lacks NVIDIA driver 525\.60\.13 or newer .*\(has 520\.1\.1\); bf16: /);
    expect(hostLacks(h200, '14.0')).toMatch(/a known driver minimum for CUDA 14\.0/);
    expect(GPU_CHECK_EXIT.hostLacks).toBe(4);
  });
});

describe('check:gpu: what fails it and what it prints', () => {
  const passing = {
    processes: 2,
    gpu: {
      sft: { dtype: 'bfloat16', loss: 2.0, tokensPerS: 5000, stepS: 0.2, peakMemoryBytes: 3 * 2 ** 30 },
      grpo: { dtype: 'bfloat16', loss: -0.01, gradNorm: 0.101, tokensPerS: 3000, stepS: 0.5 },
    },
    cpu: { sft: { dtype: 'float32', loss: 2.02, tokensPerS: 40, stepS: 9 }, grpo: { dtype: 'float32', loss: 0.3, gradNorm: 0.1, tokensPerS: 20, stepS: 20 } },
    memory: { base: 'local/qwen3-8b', tokens: 8130, peakBytes: 24 * 2 ** 30, cardBytes: 80 * 2 ** 30, estimateBytes: 22 * 2 ** 30, stepS: 9.5 },
    serving: { tokensPerS: 150, completionTokens: 30, toolCalls: 1 },
  };

  it('passes on bf16 steps within the stated tolerances; the GRPO loss is not compared', () => {
    expect(checkFailures(passing)).toEqual([]);
  });

  it('fails a step not in bf16 (fp32 under a bf16 label), a gradient or loss gap past 5 %, a failed episode', () => {
    const fp32 = { ...passing, gpu: { ...passing.gpu, grpo: { ...passing.gpu.grpo, dtype: 'float32' } } };
    expect(checkFailures(fp32)).toEqual(['grpo on GPU trained in float32, not bfloat16']);
    const grad = { ...passing, gpu: { ...passing.gpu, grpo: { ...passing.gpu.grpo, gradNorm: 0.2 } } };
    expect(checkFailures(grad)).toEqual(['grpo gradient norm gap 100.00 % > 5 %']);
    const noGrad = { ...passing, cpu: { ...passing.cpu, grpo: { ...passing.cpu.grpo, gradNorm: null } } };
    expect(checkFailures(noGrad)).toEqual(['grpo gradient norm gap unknown > 5 %']);
    const loss = { ...passing, gpu: { ...passing.gpu, sft: { ...passing.gpu.sft, loss: 3 } } };
    expect(checkFailures(loss)).toEqual(['sft loss gap 48.51 % > 5 %']);
    expect(checkFailures({ ...passing, episode: { status: 'failed (exit 1)', detail: 'run r' } })).toEqual(['episode failed (exit 1)']);
  });

  it('prints each step beside the CPU figure: dtype, SFT loss gap, GRPO gradient-norm gap, tool calls', () => {
    const table = formatFigures(passing);
    expect(table).toMatch(/sft dtype\s+bfloat16\s+float32/);
    expect(table).toMatch(/sft loss\s+2\s+2\.02\s+0\.99 %/);
    expect(table).toMatch(/sft peak GPU memory\s+3\.00 GiB/);
    expect(table).toMatch(/grpo loss\s+-0\.01\s+0\.3\n/);
    expect(table).toMatch(/grpo gradient norm\s+0\.101\s+0\.1\s+1\.00 %/);
    expect(table).toMatch(/vLLM \+ LoRA tokens\/s\s+150\s+30 tokens, 1 tool call\(s\)/);
    expect(table).toMatch(/memory: local\/qwen3-8b, 8130 tokens\s+peak 24\.00 GiB of 80\.00 GiB\s+estimate 22\.00 GiB/);
    expect(formatFigures({ processes: 1, gpu: {}, cpu: {} })).toMatch(/grpo gradient norm\s+-\s+-\s+-/);
    expect(lossGap(1.1, 1.0)).toBeCloseTo(0.1);
    expect(lossGap(null, 1)).toBeNull();
  });
});

describe("check:gpu's memory step", () => {
  const shape = (params: number): ModelShape => ({ params, layers: 28, hidden: 1536, intermediate: 8960, heads: 12, kvHeads: 2, headDim: 128, vocab: 151936 });
  const bases: BaseShape[] = [
    { name: 'local/qwen2.5-coder-0.5b', file: '/m/a.gguf', shape: shape(630e6) },
    { name: 'local/qwen2.5-coder-1.5b', file: '/m/b.gguf', shape: shape(1.78e9) },
    { name: 'local/smollm2-135m', file: '/m/c.gguf', shape: shape(135e6) },
  ];

  it('trains the largest installed base, over two rollouts of at most N tokens that a GRPO spec file accepts', () => {
    expect(largestBase(bases)?.name).toBe('local/qwen2.5-coder-1.5b');
    expect(largestBase([])).toBeUndefined();
    const lines = memoryRollouts(MEMORY_TOKENS)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.rewards)).toEqual([{ outcome: 0 }, { outcome: 1 }]); // different: advantages to follow
    for (const l of lines) {
      expect(trainerLineSchema.safeParse(l).success).toBe(true);
      // " call" is one token: the user turn alone is N - 128 of them, the frame the rest
      expect(JSON.stringify(l).split(' call').length - 1).toBe(MEMORY_TOKENS - 128);
    }
    const spec = memoryUpdateSpec({
      base: '/m/b.gguf',
      rollouts: '/w/r.jsonl',
      outputDir: '/w/out',
      device: 'cuda',
      tokens: 8192,
      gradientCheckpointing: true,
      steps: 1,
    });
    expect(trainerSpecFileSchemas['grpo-update'].safeParse(spec).success).toBe(true);
    expect(spec).toMatchObject({ max_length: 8192, mini_batch_size: 1, max_steps: 1, ppo_epochs: 1, gradient_checkpointing: true, lora: GRPO_LORA });
    expect(
      memoryUpdateSpec({ ...{ base: 'b', rollouts: 'r', outputDir: 'o', device: 'cpu', tokens: 2048, gradientCheckpointing: false }, steps: 4 }),
    ).toMatchObject({
      ppo_epochs: 2,
      gradient_checkpointing: false,
    });
  });

  it('prints the estimate, labelled as one, without a GPU; the measured peak against the card with one', () => {
    const line = memoryEstimateLine(bases[1]);
    expect(line).toMatch(
      /^memory step \(estimate from the shape, not measured: no GPU here\): a LoRA update of local\/qwen2\.5-coder-1\.5b \(1\.78 B parameters, 28 layers, hidden 1536, vocabulary 151,936\) over 8,192 tokens in bf16 with gradient checkpointing: \d+\.\d GiB \(weights 3\.3 GiB/,
    );
    expect(line).toContain(formatUpdateMemory(memoryStepEstimate(bases[1]!)));
    expect(memoryEstimateLine(undefined)).toMatch(/estimate unavailable: no local base model is installed/);
    expect(memoryMeasuredLine({ base: 'local/x', tokens: 8130, peakBytes: 20 * 2 ** 30, cardBytes: 80 * 2 ** 30, estimateBytes: 22 * 2 ** 30, stepS: 3 })).toBe(
      "memory: a LoRA update of local/x over 8,130 tokens peaked at 20.0 GiB of the card's 80.0 GiB (25 %); estimate 22.0 GiB",
    );
    expect(parseGpuMemory('81559\n81559\n')).toEqual([81559 * 2 ** 20, 81559 * 2 ** 20]);
    expect(gpuUuid('GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-bbb)')).toBe('GPU-bbb');
  });
});
