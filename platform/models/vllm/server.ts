// vLLM servers for `vllm` registry entries (config/models.ts): started by the stack (or on a model call) on
// 127.0.0.1 of a CUDA host, one per entry, managed like the llama.cpp servers (pid, info and log files under
// the state dir, so `stack down` and `models stop` stop them too); an entry with `baseUrl` is a server
// someone else runs. Checkpoints are LoRA modules loaded at run time (`/v1/load_lora_adapter`), so a new
// epoch's checkpoint needs no restart. A host without CUDA gets a one-line error saying so: llama.cpp
// (provider `local`) is the CPU path.
import fs from 'node:fs';
import path from 'node:path';
import { ModelConfigError, type ModelSpec, vllmOptionsSchema } from '../../../config/models';
import { readOrCreateSecret } from '../../../config/secrets';
import { loadLoraAdapterBody, type VllmLaunch, vllmCommand } from '../../../domain/llm/vllmCommand';
import { portOpen, runningPid, sleep, spawnDetached, stopPid, withPrivateUmask } from '../../process/processes';
import { type DeviceInfo, detectDevice } from '../device';
import { withFileLock } from '../../process/fileLock';
import { serverFiles } from '../local/server';

export class VllmServerError extends Error {
  override name = 'VllmServerError';
}

export const VLLM_DEFAULT_PORT = 8000;

export interface VllmPlan {
  name: string;
  slug: string;
  port: number;
  launch: VllmLaunch;
  loadTimeoutS: number;
}

export function vllmPlan(spec: ModelSpec): VllmPlan {
  if (spec.provider !== 'vllm') throw new VllmServerError(`model ${spec.name} is not a vllm model`);
  const o = spec.vllm ?? vllmOptionsSchema.parse({});
  const port = spec.port ?? VLLM_DEFAULT_PORT;
  return {
    name: spec.name,
    slug: `vllm-${spec.name.replace(/[^A-Za-z0-9._-]+/g, '_')}`,
    port,
    loadTimeoutS: o.loadTimeoutS,
    launch: vllmCommand({
      model: spec.model,
      port,
      maxLoraRank: o.maxLoraRank,
      maxLoras: o.maxLoras,
      args: o.args,
      executable: o.executable,
      ...(o.gpuMemoryUtilization !== undefined ? { gpuMemoryUtilization: o.gpuMemoryUtilization } : {}),
      ...(o.tensorParallelSize !== undefined ? { tensorParallelSize: o.tensorParallelSize } : {}),
      ...(o.maxModelLen !== undefined ? { maxModelLen: o.maxModelLen } : {}),
      ...(o.dtype !== undefined ? { dtype: o.dtype } : {}),
      maxNumSeqs: o.maxNumSeqs,
      ...(o.reasoningParser !== undefined ? { reasoningParser: o.reasoningParser } : {}),
      ...(o.gpus !== undefined ? { gpus: o.gpus } : {}),
    }),
  };
}

let device: Promise<DeviceInfo> | undefined;

/** The one-line refusal on a host without CUDA (undefined on a CUDA host). The host's answer is asked once. */
export async function cudaMissing(spec: ModelSpec, detect?: () => Promise<DeviceInfo>): Promise<string | undefined> {
  if (!detect) device ??= detectDevice();
  const asked = detect ? detect() : device!;
  const d = await asked.catch(() => undefined);
  if (d?.kind === 'cuda') return undefined;
  return `model ${spec.name} (provider "vllm") needs a CUDA GPU and this host has none (${d?.description ?? 'nvidia-smi unusable'}): run it on a GPU host, or use a provider "local" (llama.cpp) model here`;
}

const baseUrlOf = (port: number) => `http://127.0.0.1:${port}/v1`;

async function status(url: string, key: string | undefined, init: RequestInit = {}, timeoutMs = 5_000): Promise<{ status: number; text: string }> {
  try {
    const r = await fetch(url, {
      ...init,
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(init.body ? { 'content-type': 'application/json' } : {}) },
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { status: r.status, text: await r.text() };
  } catch {
    return { status: 0, text: '' };
  }
}

async function healthy(baseURL: string, key: string | undefined): Promise<boolean> {
  if ((await status(`${baseURL.replace(/\/v1\/?$/, '')}/health`, undefined)).status !== 200) return false;
  return (await status(`${baseURL}/models`, key)).status === 200;
}

function logTail(file: string, lines = 15): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).slice(-lines).join('\n');
  } catch {
    return '';
  }
}

export interface VllmServeOptions {
  log?: (line: string) => void;
  progress?: (line: string) => void;
  /** The accelerator check (tests replace it). */
  detect?: () => Promise<DeviceInfo>;
}

async function startLocked(spec: ModelSpec, plan: VllmPlan, opts: VllmServeOptions): Promise<'started' | 'already running' | 'restarted'> {
  const f = serverFiles(plan.slug);
  const key = readOrCreateSecret('model-server-key');
  const config = { command: plan.launch.command, args: plan.launch.args };
  const pid = runningPid(f.pidFile);
  let restarted = false;
  if (pid !== undefined) {
    const info = (() => {
      try {
        return JSON.parse(fs.readFileSync(f.infoFile, 'utf8')) as { config?: unknown };
      } catch {
        return undefined;
      }
    })();
    if (JSON.stringify(info?.config) === JSON.stringify(config) && (await healthy(baseUrlOf(plan.port), key))) return 'already running';
    opts.log?.(`${plan.name}: restarting the vLLM server (pid ${pid})`);
    await stopPid(pid, 30_000);
    restarted = true;
  }
  if (await portOpen(plan.port))
    throw new VllmServerError(`${plan.name}: port ${plan.port} is taken by another program; set "port" for this model in the models file`);
  const newPid = withPrivateUmask(() => {
    fs.mkdirSync(f.dir, { recursive: true, mode: 0o700 });
    fs.mkdirSync(path.dirname(f.logFile), { recursive: true, mode: 0o700 });
    fs.appendFileSync(f.logFile, `\n=== ${new Date().toISOString()} starting ${plan.name}: ${plan.launch.command} ${plan.launch.args.join(' ')}\n`);
    const pid = spawnDetached(plan.launch.command, plan.launch.args, {
      logFile: f.logFile,
      pidFile: f.pidFile,
      // The key in the environment (VLLM_API_KEY), never on the command line where `ps` shows it.
      env: { ...process.env, ...plan.launch.env, VLLM_API_KEY: key },
    });
    fs.writeFileSync(f.infoFile, `${JSON.stringify({ name: plan.name, pid, port: plan.port, startedAt: new Date().toISOString(), config }, null, 2)}\n`);
    return pid;
  });
  const deadline = Date.now() + plan.loadTimeoutS * 1000;
  let note = Date.now();
  while (Date.now() < deadline) {
    if (await healthy(baseUrlOf(plan.port), key)) {
      opts.log?.(`${plan.name}: vLLM ${restarted ? 'restarted' : 'started'} on ${baseUrlOf(plan.port)} (pid ${newPid}; log ${f.logFile})`);
      return restarted ? 'restarted' : 'started';
    }
    if (runningPid(f.pidFile) !== newPid)
      throw new VllmServerError(`${plan.name}: the vLLM server exited while loading; last lines of ${f.logFile}:\n${logTail(f.logFile)}`);
    if (Date.now() - note > 10_000) {
      note = Date.now();
      opts.progress?.(`${plan.name}: waiting for vLLM to load ${spec.model}`);
    }
    await sleep(1_000);
  }
  await stopPid(newPid, 10_000);
  throw new VllmServerError(`${plan.name}: vLLM did not answer within ${plan.loadTimeoutS} s; last lines of ${f.logFile}:\n${logTail(f.logFile)}`);
}

/** Starts the entry's vLLM server unless one with these settings answers (refused without CUDA). */
export async function startVllmServer(spec: ModelSpec, opts: VllmServeOptions = {}): Promise<'started' | 'already running' | 'restarted'> {
  if (spec.baseUrl) throw new VllmServerError(`${spec.name}: has a baseUrl (${spec.baseUrl}): a server this stack does not start`);
  const missing = await cudaMissing(spec, opts.detect);
  if (missing) throw new ModelConfigError(missing);
  const plan = vllmPlan(spec);
  return withFileLock(serverFiles(plan.slug).lockFile, () => startLocked(spec, plan, opts), {
    timeoutMs: (plan.loadTimeoutS + 60) * 1000,
    onWait: () => opts.progress?.(`${plan.name}: waiting for another process starting vLLM`),
  });
}

/** The endpoint of a vllm entry for the chat path: its baseUrl, or the stack's server (started if needed). */
export async function ensureVllmServer(spec: ModelSpec, opts: VllmServeOptions = {}): Promise<{ baseURL: string; apiKey: string }> {
  if (spec.baseUrl) {
    const apiKey = spec.apiKeyEnv ? (process.env[spec.apiKeyEnv]?.trim() ?? '') : 'no-key';
    if (!apiKey) throw new ModelConfigError(`model ${spec.name}: environment variable ${spec.apiKeyEnv} is not set`);
    return { baseURL: spec.baseUrl, apiKey };
  }
  const missing = await cudaMissing(spec, opts.detect);
  if (missing) throw new ModelConfigError(missing);
  const plan = vllmPlan(spec);
  const apiKey = readOrCreateSecret('model-server-key');
  if (!(await healthy(baseUrlOf(plan.port), apiKey))) await startVllmServer(spec, opts);
  return { baseURL: baseUrlOf(plan.port), apiKey };
}

/**
 * Makes `module` (a checkpoint's LoRA directory on the server's host) a model of the server: nothing when
 * `/v1/models` already lists it, else POST /v1/load_lora_adapter. A refusal (rank above --max-lora-rank, a
 * directory the server cannot read) is a ModelConfigError carrying vLLM's answer.
 */
export async function ensureLoraLoaded(baseURL: string, apiKey: string, module: { name: string; path: string }): Promise<'loaded' | 'already loaded'> {
  const listed = await status(`${baseURL}/models`, apiKey);
  if (listed.status === 200) {
    try {
      const ids = ((JSON.parse(listed.text) as { data?: { id?: string }[] }).data ?? []).map((m) => m.id);
      if (ids.includes(module.name)) return 'already loaded';
    } catch {
      /* not JSON: try loading */
    }
  }
  const r = await status(
    `${baseURL}/load_lora_adapter`,
    apiKey,
    { method: 'POST', body: JSON.stringify(loadLoraAdapterBody(module.name, module.path)) },
    120_000,
  );
  if (r.status === 200) return 'loaded';
  // Loaded by a concurrent caller between the listing and the request.
  if (r.status === 400 && /already/i.test(r.text)) return 'already loaded';
  if (r.status === 0) throw new VllmServerError(`vLLM at ${baseURL} did not answer the LoRA load of ${module.name}`);
  throw new ModelConfigError(`vLLM at ${baseURL} refused LoRA ${module.name} from ${module.path}: ${r.status} ${r.text.slice(0, 500)}`);
}

/** vLLM entries of the registry the stack starts (no baseUrl). */
export function stackVllmEntries(all: ModelSpec[]): ModelSpec[] {
  return all.filter((s) => s.provider === 'vllm' && !s.baseUrl);
}
