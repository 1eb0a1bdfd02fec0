// `npm run check:gpu [-- --model M --processes N --cpu-threads T --plan --skip-episode --keep]`: the GPU path,
// end to end, on a CUDA host, as GRPO runs it. Checks the host first (driver for the trainer's CUDA, bf16;
// one line of what it lacks, exit 4), installs what it needs (the trainer venv, vLLM in its own venv; exact
// pins from PyPI), trains one SFT step and one GRPO step of the 0.5B in bf16 with one process per visible GPU
// (torchrun + DDP over NCCL, through the workers' own runTrainerProcess) and the same steps on CPU, compares
// them (SFT loss; GRPO gradient norm: step 1's loss is -mean(advantage) whatever the model), serves the base
// through the model registry's `vllm` kind (the stack's own command line), loads the SFT checkpoint into it at
// run time as GRPO loads each epoch's, sends a tool request through the adapter, runs one tool episode against
// the base on the same server, and prints dtype, tokens/s, peak GPU memory and each step beside the CPU one.
// Without CUDA it says so in one line and exits 3 (GPU_CHECK_EXIT). The pure parts are in gpuCheck.ts.
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT, reloadEnv } from '../../config/env';
import { models, reloadModels } from '../../config/models';
import { ensureLoraLoaded, ensureVllmServer, startVllmServer, vllmPlan } from '../../platform/models/vllm/server';
import { serverFiles } from '../../platform/models/local/server';
import { runningPid, stopPid } from '../../platform/process/processes';
import { freePort } from '../../platform/process/processes';
import { ensureTrainerPython, runTrainerProcess, TRAINER_DIR } from '../../activities/training/trainerProcess';
import { baseModelFile } from '../../activities/training/sftGpu';
import { readGgufHeader } from '../../platform/models/local/ggufHeaderFile';
import { gib, shapeOfGguf } from '../../domain/training/updateMemory';
import type { DoneEvent, ProgressEvent, TrainerCommand } from '../../domain/training/trainerProtocol';
import { UsageError } from '../../scripts/lib/args';
import {
  baseEntryOf,
  checkFailures,
  formatFigures,
  GPU_CHECK_EXIT,
  GPU_QUERY,
  type GpuCheckArgs,
  type GpuCheckFigures,
  gpuCheckPlan,
  gpuCheckUsage,
  hostLacks,
  LORA_NAME,
  noCudaLine,
  parseGpuCheckArgs,
  parseGpuQuery,
  processesOf,
  sftBatch,
  type StepFigures,
  trainerCudaOf,
  visibleGpus,
  VLLM_ENTRY,
  VLLM_REQUIREMENTS,
} from './gpuCheck';
import {
  type BaseShape,
  GPU_MEMORY_QUERY,
  gpuUuid,
  largestBase,
  MEMORY_TOKENS,
  memoryEstimateLine,
  memoryMeasuredLine,
  memoryRollouts,
  memoryStepEstimate,
  memoryUpdateSpec,
  parseGpuMemory,
} from './memoryStep';

const started = Date.now();
const log = (msg: string) => console.log(`[${Math.round((Date.now() - started) / 1000)}s] ${msg}`);

class StepFailed extends Error {}

function cacheDir(): string {
  return process.env.PAU_CACHE_DIR || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'pau');
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}): string {
  const r = spawnSync(cmd, args, { cwd: PROJECT_ROOT, encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new StepFailed(`${cmd} ${args.join(' ')} exited ${r.status ?? r.signal}: ${(r.stderr || r.stdout || '').slice(-3000)}`);
  return r.stdout;
}

async function trainerStep(
  command: TrainerCommand,
  spec: object,
  dir: string,
  env: NodeJS.ProcessEnv,
  label: string,
): Promise<{ figures: StepFigures; done: DoneEvent; longestTokens?: number }> {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'spec.json');
  fs.writeFileSync(file, JSON.stringify(spec, null, 2));
  let progress: ProgressEvent | undefined;
  let dtype: string | undefined;
  let longestTokens: number | undefined;
  const r = await runTrainerProcess(command, file, {
    env,
    onEvent: (e) => {
      if (e.type === 'progress') progress = e;
      if (e.type === 'start' && typeof e.dtype === 'string') dtype = e.dtype;
      if (e.type === 'start' && typeof e.longest_tokens === 'number') longestTokens = e.longest_tokens;
      if (e.type === 'info' || e.type === 'start' || e.type === 'error')
        log(`${label}: ${e.type === 'start' ? `start, ${e.processes ?? 1} process(es)` : e.message}`);
    },
  });
  const done = r.events.find((e): e is DoneEvent => e.type === 'done');
  if (r.exitCode !== 0 || !done || !progress) throw new StepFailed(`${label}: exit ${r.exitCode ?? r.signal}; stderr: ${r.stderrTail.slice(-3000)}`);
  const figures: StepFigures = {
    ...(dtype ? { dtype } : {}),
    loss: progress.loss,
    gradNorm: typeof progress.grad_norm === 'number' ? progress.grad_norm : null,
    tokensPerS: progress.tokens_per_s,
    stepS: typeof progress.step_s === 'number' ? progress.step_s : null,
  };
  if (progress.peak_memory_bytes !== undefined) figures.peakMemoryBytes = progress.peak_memory_bytes;
  log(`${label}: ${dtype ?? 'dtype not reported'}, loss ${figures.loss}, grad norm ${figures.gradNorm ?? '-'}, ${figures.tokensPerS} tok/s`);
  return { figures, done, ...(longestTokens !== undefined ? { longestTokens } : {}) };
}

/**
 * The bases this host could train: the registry's local entries (built-in or with their own modelPath) whose GGUF
 * is installed, with the shape their header gives. A file that cannot be read is said and skipped.
 */
function installedBases(): BaseShape[] {
  const out: BaseShape[] = [];
  for (const name of models().names()) {
    if (models().get(name).provider !== 'local') continue;
    const file = baseModelFile(name);
    if (!fs.existsSync(file)) continue;
    try {
      out.push({ name, file, shape: shapeOfGguf(readGgufHeader(file)) });
    } catch (e) {
      log(`memory step: ${name} (${file}) skipped: ${(e as Error).message}`);
    }
  }
  return out;
}

/** A LoRA update of the largest installed base over an 8k-token rollout, alone on the first visible GPU. */
async function memoryStep(gpus: string[], work: string): Promise<GpuCheckFigures['memory']> {
  const base = largestBase(installedBases());
  if (!base) throw new StepFailed('memory step: no local base model is installed');
  const uuid = gpus[0] ? gpuUuid(gpus[0]) : undefined;
  const query = spawnSync('nvidia-smi', [...(uuid ? [`--id=${uuid}`] : []), ...GPU_MEMORY_QUERY], { encoding: 'utf8' });
  const cardBytes = query.status === 0 ? parseGpuMemory(query.stdout)[0] : undefined;
  const estimate = memoryStepEstimate(base);
  log(`memory step: ${base.name}, estimate ${gib(estimate.total)}${cardBytes ? ` of the card's ${gib(cardBytes)}` : ''}`);
  const dir = path.join(work, 'memory');
  fs.mkdirSync(dir, { recursive: true });
  const rollouts = path.join(dir, 'rollouts.jsonl');
  fs.writeFileSync(rollouts, memoryRollouts(MEMORY_TOKENS));
  const spec = memoryUpdateSpec({
    base: base.file,
    rollouts,
    outputDir: path.join(dir, 'out'),
    device: 'cuda',
    tokens: MEMORY_TOKENS,
    gradientCheckpointing: true,
    steps: 1,
  });
  const env = { PAU_TRAINER_PROCESSES: '1', PAU_TRAINER_THREADS: '4', ...(uuid ? { CUDA_VISIBLE_DEVICES: uuid } : {}) };
  const step = await trainerStep('grpo-update', spec, dir, env, `memory (${base.name})`);
  if (step.figures.peakMemoryBytes === undefined) throw new StepFailed('memory step: the trainer reported no peak_memory_bytes');
  const m = {
    base: base.name,
    tokens: step.longestTokens ?? MEMORY_TOKENS,
    peakBytes: step.figures.peakMemoryBytes,
    cardBytes,
    estimateBytes: estimate.total,
    stepS: step.figures.stepS,
  };
  log(memoryMeasuredLine(m));
  return m;
}

/** Where no GPU runs the memory step: its estimate, from the largest installed base's shape. */
function printMemoryEstimate(): void {
  try {
    console.log(memoryEstimateLine(largestBase(installedBases())));
  } catch (e) {
    console.log(`memory step: estimate unavailable: ${(e as Error).message}`);
  }
}

/** vLLM in its own venv under the cache, keyed by the requirements file's hash (like trainer/setup.sh). */
function ensureVllm(trainerPy: string): string {
  const req = path.join(PROJECT_ROOT, VLLM_REQUIREMENTS);
  const hash = crypto.createHash('sha256').update(fs.readFileSync(req)).digest('hex').slice(0, 12);
  const venv = path.join(cacheDir(), 'venvs', `vllm-${hash}`);
  if (!fs.existsSync(path.join(venv, 'DONE'))) {
    log(`installing vLLM into ${venv} (minutes)`);
    fs.rmSync(venv, { recursive: true, force: true });
    run(trainerPy, ['-m', 'venv', venv]);
    run(path.join(venv, 'bin', 'python'), ['-m', 'pip', 'install', '-q', '--only-binary=:all:', '-r', req]);
    fs.writeFileSync(path.join(venv, 'DONE'), `${hash}\n`);
  }
  return path.join(venv, 'bin', 'vllm');
}

/**
 * The base served the way the stack serves a `vllm` registry entry: a models file naming it (its executable
 * the check's vLLM venv, `loraBases` the trainer's base), started by startVllmServer (vllmCommand's command
 * line), the SFT checkpoint loaded at run time with ensureLoraLoaded, as chat() does for `ckpt:<id>`.
 */
async function serveThroughRegistry(
  vllm: string,
  baseDir: string,
  model: string,
  adapterDir: string,
  work: string,
): Promise<{ url: string; apiKey: string; modelsFile: string; stop: () => Promise<void> }> {
  const modelsFile = path.join(work, 'pau.models.json');
  const entry = {
    provider: 'vllm',
    model: baseDir,
    port: await freePort(),
    params: { temperature: 0, max_tokens: 256 },
    vllm: { loraBases: [baseEntryOf(model)], executable: vllm, gpuMemoryUtilization: 0.5, loadTimeoutS: 900 },
  };
  fs.writeFileSync(modelsFile, JSON.stringify({ models: { [VLLM_ENTRY]: entry } }, null, 2));
  process.env.PAU_MODELS_FILE = modelsFile;
  reloadEnv();
  reloadModels();
  const spec = models().get(VLLM_ENTRY);
  const plan = vllmPlan(spec);
  log(`vllm: ${plan.launch.command} ${plan.launch.args.join(' ')}`);
  const stop = async () => {
    const pid = runningPid(serverFiles(plan.slug).pidFile);
    if (pid !== undefined) await stopPid(pid, 30_000);
  };
  try {
    log(`${VLLM_ENTRY}: ${await startVllmServer(spec, { log, progress: log })}`);
    const { baseURL, apiKey } = await ensureVllmServer(spec);
    log(`LoRA ${LORA_NAME}: ${await ensureLoraLoaded(baseURL, apiKey, { name: LORA_NAME, path: adapterDir })} at run time from ${adapterDir}`);
    return { url: baseURL, apiKey, modelsFile, stop };
  } catch (e) {
    await stop();
    throw new StepFailed(`vLLM through the registry: ${(e as Error).message}; log ${serverFiles(plan.slug).logFile}`);
  }
}

/** One request with a tool through the adapter: tool_choice auto needs the server's tool-call parser (else HTTP 400). */
async function oneToolCompletion(url: string, apiKey: string): Promise<{ tokensPerS: number; completionTokens: number; toolCalls: number }> {
  const t0 = Date.now();
  const r = await fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({
      model: LORA_NAME,
      messages: [{ role: 'user', content: 'Call f with x = 3 to see what the Python function f(x) returns.' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'call_f',
            description: 'Call the function f on one argument and return its result.',
            parameters: { type: 'object', properties: { x: { type: 'integer' } }, required: ['x'] },
          },
        },
      ],
      tool_choice: 'auto',
      max_tokens: 128,
      temperature: 0,
    }),
  });
  if (!r.ok) throw new StepFailed(`chat completion with a tool through ${LORA_NAME}: HTTP ${r.status} ${await r.text()}`);
  const body = (await r.json()) as { usage?: { completion_tokens?: number }; choices?: { message?: { tool_calls?: unknown[] } }[] };
  const tokens = body.usage?.completion_tokens ?? 0;
  return { tokensPerS: tokens / ((Date.now() - t0) / 1000), completionTokens: tokens, toolCalls: body.choices?.[0]?.message?.tool_calls?.length ?? 0 };
}

/**
 * One tool episode through the real stack: the base, which the models file's vllm entry serves (the same
 * server and weights as the checkpoint above), native tool calls.
 */
async function oneEpisode(modelsFile: string, model: string): Promise<{ status: string; detail: string }> {
  const env = { PAU_MODELS_FILE: modelsFile };
  const pau = (args: string[]) =>
    spawnSync('npm', ['run', '--silent', 'pau', '--', ...args], { cwd: PROJECT_ROOT, stdio: 'inherit', env: { ...process.env, ...env } });
  if (pau(['stack', 'up']).status !== 0) throw new StepFailed('pau stack up failed');
  if (
    pau(['dataset', 'show', 'pau-mini']).status !== 0 &&
    pau(['dataset', 'build', '--name', 'pau-mini', '--limit', '16', '--test', '4', '--validation', '4']).status !== 0
  ) {
    throw new StepFailed('pau dataset build pau-mini failed');
  }
  const workers = spawn('npm', ['run', '--silent', 'workers'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  try {
    await new Promise<void>((resolve, reject) => {
      let seen = '';
      const timer = setTimeout(() => reject(new StepFailed('workers not ready within 5 min')), 5 * 60_000);
      workers.stdout?.on('data', (d: Buffer) => {
        seen += d.toString();
        if (/worker pau: ready/.test(seen) && /worker pau-sandbox: ready/.test(seen)) {
          clearTimeout(timer);
          resolve();
        }
      });
      workers.once('exit', (c) => reject(new StepFailed(`workers exited ${c}`)));
    });
    const runId = `gpu-check-${Date.now().toString(36)}`;
    const r = pau([
      'bench',
      'run',
      '--dataset',
      'pau-mini',
      '--split',
      'test',
      '--models',
      baseEntryOf(model),
      '--limit',
      '1',
      '--settings',
      'interactive',
      '--judge',
      'off',
      '--run-id',
      runId,
    ]);
    return { status: r.status === 0 ? 'completed' : `failed (exit ${r.status})`, detail: `run ${runId}` };
  } finally {
    if (workers.pid) process.kill(-workers.pid, 'SIGTERM');
  }
}

async function check(args: GpuCheckArgs, gpus: string[]): Promise<number> {
  const n = processesOf({ args, gpus });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-check-gpu-'));
  const figures: GpuCheckFigures = { processes: n, gpu: {}, cpu: {} };
  let stopVllm: (() => Promise<void>) | undefined;
  try {
    log('trainer venv (trainer/setup.sh)');
    const py = await ensureTrainerPython((l) => log(l));
    const cuda = spawnSync(py, ['-c', 'import torch; print(torch.cuda.is_available(), torch.cuda.device_count(), torch.version.cuda)'], { encoding: 'utf8' });
    if (!cuda.stdout.startsWith('True'))
      throw new StepFailed(`nvidia-smi lists GPUs but torch ${cuda.stdout.trim()} cannot use them (driver too old for its CUDA?)`);
    log(`torch sees CUDA: ${cuda.stdout.trim()}`);
    const model = run(py, [path.join(TRAINER_DIR, 'tests', 'standin_models.py'), args.model]).trim();
    const marker = fs
      .readFileSync(path.join(TRAINER_DIR, 'tests', 'data', 'marker_sft.jsonl'), 'utf8')
      .trim()
      .split('\n');
    const data = path.join(work, 'sft.jsonl');
    fs.writeFileSync(data, `${Array.from({ length: sftBatch(n) }, (_, i) => marker[i % marker.length]).join('\n')}\n`);
    const sft = (device: string, out: string) => ({
      base_model: model,
      data,
      output_dir: out,
      device,
      max_steps: 1,
      batch_size: sftBatch(n),
      lr: 2e-4,
      seed: 7,
      save_every: 1,
      max_length: 1024,
      ...(device === 'cpu' ? { threads: args['cpu-threads'] } : {}),
    });
    const grpo = (device: string, out: string) => ({
      base_model: model,
      rollouts: path.join(TRAINER_DIR, 'tests', 'data', 'tiny_rollouts.jsonl'),
      output_dir: out,
      device,
      max_steps: 1,
      mini_batch_size: 4,
      lr: 1e-5,
      seed: 3,
      max_length: 1024,
      advantage: { mode: 'aac' },
      ...(device === 'cpu' ? { threads: args['cpu-threads'] } : {}),
    });
    const onGpu = { PAU_TRAINER_PROCESSES: String(n), PAU_TRAINER_THREADS: '4' };
    const onCpu = { PAU_TRAINER_PROCESSES: '1' };
    const sftGpu = await trainerStep('sft', sft('cuda', path.join(work, 'sft-gpu')), path.join(work, 'sft-gpu'), onGpu, 'SFT on GPU');
    figures.gpu.sft = sftGpu.figures;
    figures.cpu.sft = (await trainerStep('sft', sft('cpu', path.join(work, 'sft-cpu')), path.join(work, 'sft-cpu'), onCpu, 'SFT on CPU')).figures;
    figures.gpu.grpo = (await trainerStep('grpo-update', grpo('cuda', path.join(work, 'grpo-gpu')), path.join(work, 'grpo-gpu'), onGpu, 'GRPO on GPU')).figures;
    figures.cpu.grpo = (await trainerStep('grpo-update', grpo('cpu', path.join(work, 'grpo-cpu')), path.join(work, 'grpo-cpu'), onCpu, 'GRPO on CPU')).figures;
    figures.memory = await memoryStep(gpus, work);

    const vllm = ensureVllm(py);
    const baseSha = sftGpu.done.base_sha256;
    if (!baseSha) throw new StepFailed('the SFT done event has no base_sha256 (an older trainer?)');
    const baseDir = path.join(cacheDir(), 'trainer', 'bases', baseSha.slice(0, 16));
    const served = await serveThroughRegistry(vllm, baseDir, args.model, sftGpu.done.checkpoint, work);
    stopVllm = served.stop;
    figures.serving = await oneToolCompletion(served.url, served.apiKey);
    log(`vLLM + LoRA: ${figures.serving.completionTokens} tokens, ${figures.serving.toolCalls} tool call(s), ${figures.serving.tokensPerS.toFixed(1)} tok/s`);
    if (!args['skip-episode']) figures.episode = await oneEpisode(served.modelsFile, args.model);
  } catch (e) {
    if (!(e instanceof StepFailed)) throw e;
    console.log(`\n${formatFigures(figures)}\n\ncheck:gpu FAILED: ${e.message}`);
    return GPU_CHECK_EXIT.failed;
  } finally {
    await stopVllm?.();
    if (args.keep) log(`work directory kept: ${work}`);
    else fs.rmSync(work, { recursive: true, force: true });
  }
  console.log(`\n${formatFigures(figures)}`);
  const failures = checkFailures(figures);
  if (failures.length > 0) {
    console.log(`check:gpu FAILED: ${failures.join('; ')}`);
    return GPU_CHECK_EXIT.failed;
  }
  console.log('check:gpu passed');
  return GPU_CHECK_EXIT.ok;
}

async function main(): Promise<number> {
  let args: GpuCheckArgs;
  try {
    args = parseGpuCheckArgs(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    console.error(`check:gpu: ${e.message}\nusage: ${gpuCheckUsage}`);
    return GPU_CHECK_EXIT.usage;
  }
  const smi = spawnSync('nvidia-smi', ['-L'], { encoding: 'utf8' });
  const gpus = smi.status === 0 ? visibleGpus(smi.stdout, process.env.CUDA_VISIBLE_DEVICES) : [];
  if (args.plan) {
    console.log(`check:gpu plan (${gpus.length ? `${gpus.length} GPU(s) visible` : 'no GPU visible here'}):\n${gpuCheckPlan({ args, gpus }).join('\n')}`);
    if (gpus.length === 0) printMemoryEstimate();
    return GPU_CHECK_EXIT.ok;
  }
  if (gpus.length === 0) {
    const reason = smi.error
      ? 'nvidia-smi not found'
      : smi.status !== 0
        ? `nvidia-smi -L exited ${smi.status}`
        : 'no GPU visible (CUDA_VISIBLE_DEVICES or none installed)';
    console.log(noCudaLine(reason));
    printMemoryEstimate();
    return GPU_CHECK_EXIT.noCuda;
  }
  // The host before anything is installed: a driver too old for the trainer's CUDA, or GPUs without bf16.
  const query = spawnSync('nvidia-smi', GPU_QUERY, { encoding: 'utf8' });
  const info = query.status === 0 ? parseGpuQuery(query.stdout) : [];
  const lacks = hostLacks(info, trainerCudaOf(fs.readFileSync(path.join(TRAINER_DIR, 'requirements.txt'), 'utf8')));
  if (lacks) {
    console.log(lacks);
    return GPU_CHECK_EXIT.hostLacks;
  }
  console.log(`check:gpu on ${gpus.length} GPU(s):\n${gpus.map((g) => `  ${g}`).join('\n')}\n${gpuCheckPlan({ args, gpus }).join('\n')}\n`);
  return check(args, gpus);
}

process.exit(await main());
