// Local model servers: one llama.cpp HTTP server (llama_server.py in the shared model runtime) per
// `local` registry entry, on 127.0.0.1:<port>, requiring the `model-server-key` secret. Managed like the
// rest of the stack: a pid file, an info file (the settings it runs with) and a log under the state dir.
// `ensureLocalServer` is what the chat path calls: healthy → nothing to do; otherwise (never started,
// died, or started with other settings) it installs what is missing and starts it, under a lock so that
// concurrent activities and processes start it once.
import fs from 'node:fs';
import path from 'node:path';
import { env } from '../../../config/env';
import { catalogueEntry, type LocalModelCatalogueEntry } from '../../../domain/llm/localModels';
import type { ModelSpec } from '../../../config/models';
import { readOrCreateSecret } from '../../../config/secrets';
import { portOpen, runningPid, sleep, spawnDetached, stopPid, withPrivateUmask } from '../../process/processes';
import { withFileLock } from '../../process/fileLock';
import { checkModelFile, installCommand, installModel, ModelCorruptError, modelFile, ModelNotInstalledError } from './install';
import { ensureRuntime, readyRuntime, runtimeDir, SERVER_SCRIPT } from './runtime';

export interface LocalServerPlan {
  /** The registry name, e.g. `local/qwen2.5-coder-0.5b`. */
  name: string;
  /** File-name-safe form of the name (pid, info and log files). */
  slug: string;
  builtin?: LocalModelCatalogueEntry;
  modelPath: string;
  sha256?: string;
  port: number;
  threads: number;
  ctxPerSlot: number;
  parallel: number;
  lora: string[];
}

export class LocalServerError extends Error {
  override name = 'LocalServerError';
}

export function planFor(spec: ModelSpec): LocalServerPlan {
  if (spec.provider !== 'local') throw new LocalServerError(`model ${spec.name} is not a local model`);
  const builtin = spec.modelPath ? undefined : catalogueEntry(spec.model);
  const modelPath = spec.modelPath ? path.resolve(spec.modelPath) : modelFile(spec.model);
  if (spec.port === undefined) throw new LocalServerError(`model ${spec.name}: no port`);
  return {
    name: spec.name,
    slug: spec.name.replace(/[^A-Za-z0-9._-]+/g, '_'),
    ...(builtin ? { builtin } : {}),
    modelPath,
    ...((spec.sha256 ?? builtin?.sha256) ? { sha256: spec.sha256 ?? builtin?.sha256 } : {}),
    port: spec.port,
    threads: spec.threads ?? 1,
    ctxPerSlot: spec.ctxPerSlot ?? builtin?.serve.ctxPerSlot ?? 4096,
    parallel: spec.parallel ?? builtin?.serve.parallel ?? 1,
    lora: (spec.loraAdapters ?? []).map((p) => path.resolve(p)),
  };
}

export function serverFiles(slug: string, stateDir = env().PAU_STATE_DIR) {
  const dir = path.join(stateDir, 'models');
  return {
    dir,
    pidFile: path.join(dir, `${slug}.pid`),
    infoFile: path.join(dir, `${slug}.json`),
    lockFile: path.join(dir, `${slug}.lock`),
    logFile: path.join(stateDir, 'logs', `model-${slug}.log`),
  };
}

/** What a server was started with; a server running with other settings is restarted. */
function launchConfig(plan: LocalServerPlan) {
  return {
    model: plan.modelPath,
    port: plan.port,
    threads: plan.threads,
    ctx_per_slot: plan.ctxPerSlot,
    parallel: plan.parallel,
    alias: plan.name,
    lora: plan.lora,
    cache_ram_mib: 512,
  };
}

interface ServerInfo {
  name: string;
  pid: number;
  port: number;
  startedAt: string;
  config: ReturnType<typeof launchConfig>;
}

export const baseUrlOf = (port: number) => `http://127.0.0.1:${port}/v1`;

async function getStatus(url: string, key?: string, timeoutMs = 2_000): Promise<number> {
  try {
    const r = await fetch(url, { headers: key ? { authorization: `Bearer ${key}` } : {}, signal: AbortSignal.timeout(timeoutMs) });
    await r.arrayBuffer();
    return r.status;
  } catch {
    return 0;
  }
}

/** Loaded and answering with our key (`/health` is public, so the key is checked on `/v1/models`). */
export async function serverHealthy(port: number, key = readOrCreateSecret('model-server-key')): Promise<boolean> {
  if ((await getStatus(`http://127.0.0.1:${port}/health`)) !== 200) return false;
  return (await getStatus(`${baseUrlOf(port)}/models`, key)) === 200;
}

function readInfo(file: string): ServerInfo | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as ServerInfo;
  } catch {
    return undefined;
  }
}

const sameConfig = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export interface ServeOptions {
  log?: (line: string) => void;
  /** Install / assembly progress lines, and a heartbeat while waiting. */
  progress?: (line: string) => void;
  /** Seconds to wait for the model to load. */
  loadTimeoutS?: number;
  /**
   * Install what is missing (the model file, the llama.cpp runtime) before starting: true for provisioning
   * (`stack up`, `models serve`, the harnesses). The chat path passes false: a model turn only connects to a
   * server, or starts one from a ready install, and a missing install is a ModelNotInstalledError.
   */
  install?: boolean;
}

/** The model file, installed when it is a missing built-in; a corrupt file is a clear error. */
async function ensureModelFile(plan: LocalServerPlan, opts: ServeOptions): Promise<void> {
  if (plan.builtin) {
    const state = await checkModelFile(plan.modelPath, plan.builtin.sha256, plan.builtin.bytes);
    if (state.state === 'corrupt') {
      throw new ModelCorruptError(
        `${plan.name}: the model file ${plan.modelPath} is corrupt (${state.reason}); \`npm run pau -- models install ${plan.builtin.short}\` replaces it`,
      );
    }
    if (state.state === 'missing') {
      if (opts.install === false)
        throw new ModelNotInstalledError(plan.name, installCommand(plan.builtin.short), `the model file ${plan.modelPath} is not installed`);
      opts.log?.(`${plan.name}: model file missing; installing it`);
      await installModel(plan.builtin.short, { ...(opts.log ? { log: opts.log } : {}), ...(opts.progress ? { progress: opts.progress } : {}) });
    }
    return;
  }
  if (!fs.existsSync(plan.modelPath)) throw new LocalServerError(`${plan.name}: model file ${plan.modelPath} does not exist`);
  if (fs.statSync(plan.modelPath).isDirectory()) {
    // A Hugging Face directory trains as it is (the trainer's models.py) but llama.cpp reads GGUF files only.
    throw new LocalServerError(
      `${plan.name}: ${plan.modelPath} is a directory (a Hugging Face model?); llama.cpp serves GGUF files. ` +
        `A directory base trains as it is and is served by vLLM: a vllm entry whose model is this directory and whose vllm.loraBases lists ${plan.name} (docs/models.md)`,
    );
  }
  if (plan.sha256) {
    const state = await checkModelFile(plan.modelPath, plan.sha256);
    if (state.state === 'corrupt') throw new ModelCorruptError(`${plan.name}: the model file ${plan.modelPath} is corrupt (${state.reason})`);
  }
}

function logTail(file: string, lines = 15): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).slice(-lines).join('\n');
  } catch {
    return '';
  }
}

async function startLocked(plan: LocalServerPlan, opts: ServeOptions): Promise<'started' | 'already running' | 'restarted'> {
  const f = serverFiles(plan.slug);
  const key = readOrCreateSecret('model-server-key');
  const config = launchConfig(plan);
  const pid = runningPid(f.pidFile);
  const info = readInfo(f.infoFile);
  let restarted = false;
  if (pid !== undefined) {
    if (info && sameConfig(info.config, config)) {
      // Running with these settings: healthy, or still loading.
      if (await waitHealthy(plan, pid, f.logFile, opts)) return 'already running';
    }
    opts.log?.(`${plan.name}: restarting the server (pid ${pid}) ${info && !sameConfig(info.config, config) ? 'with new settings' : 'that does not answer'}`);
    await stopPid(pid, 5_000);
    restarted = true;
  }
  if (await portOpen(plan.port)) {
    throw new LocalServerError(
      `${plan.name}: port ${plan.port} is taken by another program (not a server of this state dir ${env().PAU_STATE_DIR}); set "port" for this model in the models file, or PAU_MODEL_PORT_BASE`,
    );
  }
  await ensureModelFile(plan, opts);
  const python = opts.install === false ? readyRuntime() : await ensureRuntime(opts.log);
  if (python === undefined) {
    throw new ModelNotInstalledError(
      plan.name,
      plan.builtin ? installCommand(plan.builtin.short) : `npm run pau -- models serve ${plan.name}`,
      `the llama.cpp runtime (${runtimeDir()}) is not installed`,
    );
  }
  // Under the state dir, like the rest of the stack: the owner's alone (umask 077 for the server too).
  const newPid = withPrivateUmask(() => {
    fs.mkdirSync(f.dir, { recursive: true, mode: 0o700 });
    fs.mkdirSync(path.dirname(f.logFile), { recursive: true, mode: 0o700 });
    fs.appendFileSync(f.logFile, `\n=== ${new Date().toISOString()} starting ${plan.name}: ${JSON.stringify(config)}\n`);
    const pid = spawnDetached(python, [SERVER_SCRIPT, JSON.stringify(config)], {
      logFile: f.logFile,
      pidFile: f.pidFile,
      env: { ...process.env, PAU_MODEL_SERVER_KEY: key },
    });
    fs.writeFileSync(
      f.infoFile,
      JSON.stringify({ name: plan.name, pid, port: plan.port, startedAt: new Date().toISOString(), config } satisfies ServerInfo, null, 2) + '\n',
    );
    return pid;
  });
  if (!(await waitHealthy(plan, newPid, f.logFile, opts))) {
    await stopPid(newPid, 2_000);
    fs.rmSync(f.pidFile, { force: true });
    throw new LocalServerError(
      `${plan.name}: the server did not become healthy within ${opts.loadTimeoutS ?? 180} s; last lines of ${f.logFile}:\n${logTail(f.logFile)}`,
    );
  }
  opts.log?.(
    `${plan.name}: ${restarted ? 'restarted' : 'started'} on ${baseUrlOf(plan.port)} (pid ${newPid}, ${plan.threads} thread(s), ${plan.parallel} slot(s) × ${plan.ctxPerSlot} tokens${plan.lora.length ? `, LoRA ${plan.lora.join(', ')}` : ''}; log ${f.logFile})`,
  );
  return restarted ? 'restarted' : 'started';
}

/** Waits until the server answers; false when it does not within the load timeout. Throws when it died. */
async function waitHealthy(plan: LocalServerPlan, pid: number, logFile: string, opts: ServeOptions): Promise<boolean> {
  const deadline = Date.now() + (opts.loadTimeoutS ?? 180) * 1000;
  let lastNote = Date.now();
  while (Date.now() < deadline) {
    if (await serverHealthy(plan.port)) return true;
    if (runningPid(serverFiles(plan.slug).pidFile) !== pid) {
      throw new LocalServerError(`${plan.name}: the server exited while loading; last lines of ${logFile}:\n${logTail(logFile)}`);
    }
    if (Date.now() - lastNote > 5_000) {
      lastNote = Date.now();
      opts.progress?.(`${plan.name}: waiting for the server to load the model`);
    }
    await sleep(250);
  }
  return false;
}

/** Starts the server unless a healthy one with these settings runs. Safe to call from many processes at once. */
export async function startLocalServer(spec: ModelSpec, opts: ServeOptions = {}): Promise<'started' | 'already running' | 'restarted'> {
  const plan = planFor(spec);
  return withFileLock(serverFiles(plan.slug).lockFile, () => startLocked(plan, opts), {
    onWait: () => opts.progress?.(`${plan.name}: waiting for another process starting the server`),
  });
}

const healthyUntil = new Map<string, { until: number; config: string }>();

/**
 * The chat path's check before each request: the server's base URL once it is healthy, starting it when it
 * is not. A health answer is trusted for 5 s, for the settings it was given with (a checkpoint whose adapter
 * changed is never sent to the server still holding the old one); `forgetHealth` (after a connection error)
 * drops it.
 */
export async function ensureLocalServer(spec: ModelSpec, opts: ServeOptions = {}): Promise<string> {
  const plan = planFor(spec);
  const key = `${plan.slug}:${plan.port}`;
  const config = JSON.stringify(launchConfig(plan));
  const known = healthyUntil.get(key);
  if (known && known.config === config && known.until > Date.now()) return baseUrlOf(plan.port);
  const info = readInfo(serverFiles(plan.slug).infoFile);
  const current = info && sameConfig(info.config, launchConfig(plan));
  if (!current || !(await serverHealthy(plan.port))) await startLocalServer(spec, opts);
  healthyUntil.set(key, { until: Date.now() + 5_000, config });
  return baseUrlOf(plan.port);
}

export function forgetHealth(spec: ModelSpec): void {
  if (spec.port !== undefined) healthyUntil.delete(`${spec.name.replace(/[^A-Za-z0-9._-]+/g, '_')}:${spec.port}`);
}

export async function stopLocalServer(slug: string, stateDir?: string): Promise<'stopped' | 'not running'> {
  const f = serverFiles(slug, stateDir);
  const pid = runningPid(f.pidFile);
  fs.rmSync(f.infoFile, { force: true });
  if (pid === undefined) return 'not running';
  await stopPid(pid, 10_000);
  fs.rmSync(f.pidFile, { force: true });
  return 'stopped';
}

export interface LocalServerStatus {
  name: string;
  slug: string;
  pid: number | undefined;
  port: number | undefined;
  state: 'up' | 'down' | 'not answering';
  startedAt?: string;
  config?: ServerInfo['config'];
}

/** Every server this state dir started (running or not). */
export async function localServers(stateDir?: string): Promise<LocalServerStatus[]> {
  const dir = serverFiles('x', stateDir).dir;
  if (!fs.existsSync(dir)) return [];
  const out: LocalServerStatus[] = [];
  for (const f of fs
    .readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .sort()) {
    const slug = f.slice(0, -'.json'.length);
    const files = serverFiles(slug, stateDir);
    const info = readInfo(files.infoFile);
    const pid = runningPid(files.pidFile);
    const state = pid === undefined ? 'down' : info && (await serverHealthy(info.port)) ? 'up' : 'not answering';
    out.push({ name: info?.name ?? slug, slug, pid, port: info?.port, state, ...(info ? { startedAt: info.startedAt, config: info.config } : {}) });
  }
  return out;
}

/** Stops every server this state dir started (stack down, the test teardown). */
export async function stopAllLocalServers(stateDir?: string): Promise<{ name: string; result: string }[]> {
  const out: { name: string; result: string }[] = [];
  for (const s of await localServers(stateDir)) out.push({ name: s.name, result: await stopLocalServer(s.slug, stateDir) });
  return out;
}
