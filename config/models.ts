// The model registry: named models, each an OpenAI-compatible endpoint (or the built-in scripted mock).
// Built-in entries + the optional models file (PAU_MODELS_FILE, default `pau.models.json`), zod-validated;
// API keys come from the environment variable each entry names. Format and examples: docs/models.md.
import fs from 'node:fs';
import os from 'node:os';
import { z } from 'zod';
import { env } from './env';
import { LOCAL_MODELS, LOCAL_PREFIX, type LocalModelCatalogueEntry } from '../domain/llm/localModels';
import { modelParamsSchema } from '../domain/llm/modelParams';

/** vLLM's accepted --max-lora-rank values. */
export const VLLM_LORA_RANKS = [1, 8, 16, 32, 64, 128, 256, 320, 512] as const;

/** `--max-num-seqs` of a vllm entry that sets none, and its `maxConcurrency` then: the engine batches this many sequences at once. */
export const VLLM_DEFAULT_MAX_NUM_SEQS = 64;

/** Provider `vllm` only: how the stack starts the server (domain/llm/vllmCommand.ts) and what it serves. */
export const vllmOptionsSchema = z
  .strictObject({
    /**
     * Registry names of the bases (e.g. `local/qwen2.5-coder-0.5b`) this server serves: the base itself (no
     * adapter) and its checkpoints as LoRA modules, so the policy, the critic, the base arm of an evaluation
     * and every checkpoint share one engine, one set of weights and one tool parser.
     */
    loraBases: z.array(z.string().min(1)).default([]),
    /** `--max-lora-rank`: at least the rank of every adapter it loads. */
    maxLoraRank: z
      .number()
      .int()
      .refine((r) => (VLLM_LORA_RANKS as readonly number[]).includes(r), `one of ${VLLM_LORA_RANKS.join(', ')} (vLLM's choices)`)
      .default(16),
    /** `--max-loras`: adapters in one batch. */
    maxLoras: z.number().int().min(1).max(64).default(4),
    gpuMemoryUtilization: z.number().gt(0).max(1).optional(),
    /** `--tensor-parallel-size`; default the number of `gpus` (1 when unset). */
    tensorParallelSize: z.number().int().min(1).optional(),
    /** `--max-model-len`; default the trainer's max_length (8,192). */
    maxModelLen: z.number().int().min(256).optional(),
    /** `--max-num-seqs`, and the entry's default `maxConcurrency`. */
    maxNumSeqs: z.number().int().min(1).max(4096).default(VLLM_DEFAULT_MAX_NUM_SEQS),
    dtype: z.enum(['auto', 'bfloat16', 'float16']).optional(),
    /** `--reasoning-parser`; default `qwen3` for a Qwen3 model, else none; null: none. */
    reasoningParser: z.string().min(1).nullable().optional(),
    /**
     * The GPUs this server uses (its CUDA_VISIBLE_DEVICES); the trainer gets the others (PAU_TRAINER_GPUS,
     * docs/scale.md). Unset: every visible GPU.
     */
    gpus: z.array(z.number().int().min(0)).min(1).optional(),
    /** More `vllm serve` arguments, passed as they are. */
    args: z.array(z.string()).default([]),
    /** The `vllm` executable (a path, or a name on the PATH). */
    executable: z.string().min(1).default('vllm'),
    /** Seconds to wait for the server to load the model. */
    loadTimeoutS: z.number().int().min(10).default(900),
  })
  .superRefine((o, ctx) => {
    if (o.gpus && new Set(o.gpus).size !== o.gpus.length) ctx.addIssue({ code: 'custom', path: ['gpus'], message: 'lists a GPU twice' });
    if (o.gpus && o.tensorParallelSize !== undefined && o.tensorParallelSize !== o.gpus.length)
      ctx.addIssue({
        code: 'custom',
        path: ['tensorParallelSize'],
        message: `${o.tensorParallelSize} differs from the ${o.gpus.length} GPU(s) in gpus: vLLM shards the model over exactly the GPUs it sees`,
      });
  });
export type VllmOptions = z.infer<typeof vllmOptionsSchema>;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A vllm entry that sets no `maxConcurrency` gets its engine's `--max-num-seqs`: the requests it batches at once. */
function vllmConcurrencyDefault(raw: unknown): unknown {
  if (!isRecord(raw) || raw.provider !== 'vllm' || raw.maxConcurrency !== undefined) return raw;
  const seqs = isRecord(raw.vllm) && typeof raw.vllm.maxNumSeqs === 'number' ? raw.vllm.maxNumSeqs : VLLM_DEFAULT_MAX_NUM_SEQS;
  return { ...raw, maxConcurrency: Math.min(1000, seqs) };
}

const modelEntryObject = z
  .object({
    /**
     * `openai`: any OpenAI-compatible endpoint. `mock`: the project's scripted model server (not a real LLM).
     * `local`: a GGUF model served by a llama.cpp server this project starts on 127.0.0.1 (docs/models.md).
     * `vllm`: a vLLM server the stack starts on 127.0.0.1 of a CUDA host (`model`: a Hugging Face id or a
     * directory), serving checkpoints as LoRA modules loaded at run time; with `baseUrl`, one already running.
     */
    provider: z.enum(['openai', 'mock', 'local', 'vllm']).default('openai'),
    /** Endpoint base URL, e.g. https://api.openai.com/v1. Mock: optional (the in-process scripted server). */
    baseUrl: z.url().optional(),
    /** The model id the endpoint expects. Mock: the scripted policy (oracle, null, random, ...). */
    model: z.string().trim().min(1),
    /** Name of the environment variable holding the API key (never the key itself). */
    apiKeyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
      .optional(),
    /** USD per million input / output tokens (0 when unknown or free). */
    inputUsdPerMTok: z.number().min(0).default(0),
    outputUsdPerMTok: z.number().min(0).default(0),
    /** Requests in flight for this model across ALL workers (Postgres advisory-lock slots). */
    maxConcurrency: z.number().int().min(1).max(1000).default(4),
    /** Per-request timeout. */
    timeoutMs: z.number().int().min(1000).default(120_000),
    /** Default request parameters (agent, judge and code writer alike); an episode's or a run's own params override them. */
    params: modelParamsSchema.default({ temperature: 0 }),
    /**
     * How the agent is asked to act: `native` sends the tools and reads `tool_calls` (JSON tool calls written
     * in the message text are parsed too); `text` sends no tools and tells the model to write
     * `CALL f(...)` / `DESCRIPTION: ...` lines (for endpoints without tool support).
     */
    toolProtocol: z.enum(['native', 'text']).default('native'),
    /** Local only: a GGUF file of your own instead of a built-in model (`model` is then just its name). */
    modelPath: z.string().min(1).optional(),
    /** Local only: the expected sha256 of `modelPath` (checked once, then cheaply by size and mtime). */
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional(),
    /** Local only: loopback port, CPU threads, context per slot (tokens), parallel slots, LoRA adapters. */
    port: z.number().int().min(1).max(65535).optional(),
    threads: z.number().int().min(1).max(256).optional(),
    ctxPerSlot: z.number().int().min(256).optional(),
    parallel: z.number().int().min(1).max(64).optional(),
    loraAdapters: z.array(z.string().min(1)).optional(),
    /** vLLM only: the server's settings (vllmOptionsSchema). */
    vllm: vllmOptionsSchema.optional(),
    /**
     * Parameters the endpoint rejects (reasoning models: `["temperature", "top_p"]`): dropped from every
     * request to this model, whoever set them (defaults, a run's --temperature, a judge config).
     */
    unsupportedParams: z.array(z.string().min(1)).default([]),
  })
  .strict()
  .superRefine((m, ctx) => {
    if (m.provider === 'openai' && !m.baseUrl) ctx.addIssue({ code: 'custom', path: ['baseUrl'], message: 'required for provider "openai"' });
    if (m.vllm && m.provider !== 'vllm') ctx.addIssue({ code: 'custom', path: ['vllm'], message: 'only for provider "vllm"' });
    if (m.provider === 'vllm') {
      for (const k of ['modelPath', 'sha256', 'threads', 'ctxPerSlot', 'parallel', 'loraAdapters'] as const) {
        if (m[k] !== undefined)
          ctx.addIssue({ code: 'custom', path: [k], message: 'provider "local" only (a vllm entry loads checkpoints as LoRA modules: vllm.loraBases)' });
      }
    }
    if (m.provider === 'local' && !m.modelPath && !LOCAL_MODELS.some((c) => c.short === m.model)) {
      ctx.addIssue({
        code: 'custom',
        path: ['model'],
        message: `provider "local" needs a built-in model (${LOCAL_MODELS.map((c) => c.short).join(', ')}) or a modelPath`,
      });
    }
  });
export const modelEntrySchema = z.preprocess(vllmConcurrencyDefault, modelEntryObject);
export type ModelEntry = z.infer<typeof modelEntrySchema>;
export interface ModelSpec extends ModelEntry {
  name: string;
  /** A checkpoint's adapter content (sha256): what identifies it in the llm_calls cache key, on every host. */
  adapterSha256?: string;
  /**
   * A checkpoint's trained adapter (adapter_model.safetensors, what the trainer loads) by its sha256,
   * whichever form the engine serves (llama.cpp: its GGUF export): what an episode records as the adapter
   * its turns were sampled with (domain/training/sampledWith.ts).
   */
  trainedAdapterSha256?: string;
  /** vLLM: the checkpoint's LoRA directory on this host, loaded into the server as `name` before the request. */
  loraModule?: { name: string; path: string; base: string };
}

export const modelsFileSchema = z
  .object({
    /** Models benchmarked by `npm start` when PAU_MODELS is unset. */
    default: z.array(z.string()).optional(),
    models: z.record(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]*$/, 'letters, digits, . _ : / - only'), modelEntrySchema).default({}),
  })
  .strict();
export type ModelsFile = z.infer<typeof modelsFileSchema>;

/**
 * Scripted policies the mock server implements. The first three are for demos; the rest drive tests. The
 * `text-` ones speak the plain-text tool protocol (`CALL f(...)` / `DESCRIPTION: ...`), like the small local
 * models.
 */
export const MOCK_POLICIES = [
  'oracle',
  'null',
  'random',
  'malformed',
  'wrong-arity',
  'refuse',
  'empty',
  'ratelimit',
  'loading',
  'unauthorized',
  'steps',
  'text-calls-only',
  'text-reask',
] as const;
export type MockPolicy = (typeof MOCK_POLICIES)[number];
export const MOCK_PREFIX = 'mock-';

function mockEntry(policy: MockPolicy): ModelEntry {
  return modelEntrySchema.parse({
    provider: 'mock',
    model: policy,
    maxConcurrency: 64,
    timeoutMs: 30_000,
    params: { temperature: 0 },
    ...(policy.startsWith('text-') ? { toolProtocol: 'text' } : {}),
  });
}

/** CPU threads a local server uses by default: half the cores, so an agent and a judge server fit side by side. */
export function defaultLocalThreads(): number {
  return Math.max(1, Math.floor(os.availableParallelism() / 2));
}

/** The built-in entry `local/<short>` of a catalogue model; its port is PAU_MODEL_PORT_BASE + its index. */
export function builtinLocalEntry(c: LocalModelCatalogueEntry, index: number): ModelEntry {
  return modelEntrySchema.parse({
    provider: 'local',
    model: c.short,
    port: env().PAU_MODEL_PORT_BASE + index,
    threads: defaultLocalThreads(),
    ctxPerSlot: c.serve.ctxPerSlot,
    parallel: c.serve.parallel,
    maxConcurrency: c.serve.parallel,
    timeoutMs: 600_000,
    params: { temperature: 0, max_tokens: 384 },
  });
}

export class ModelConfigError extends Error {
  override name = 'ModelConfigError';
}

export class ModelRegistry {
  constructor(
    private readonly entries: Map<string, ModelEntry>,
    /** The models file's `default`, if any. */
    readonly defaults: string[] = [],
    /** Names the models file defines (built-in entries are not "configured"). */
    private readonly fromFile: Set<string> = new Set(),
  ) {}

  /** A named model. `mock-<policy>` always resolves to the scripted server with that policy. */
  get(name: string): ModelSpec {
    const entry = this.entries.get(name);
    if (entry) return { name, ...entry };
    if (name.startsWith(MOCK_PREFIX) && (MOCK_POLICIES as readonly string[]).includes(name.slice(MOCK_PREFIX.length))) {
      return { name, ...mockEntry(name.slice(MOCK_PREFIX.length) as MockPolicy) };
    }
    throw new ModelConfigError(`unknown model ${JSON.stringify(name)}; known: ${this.names().join(', ')} (and mock-<policy> for ${MOCK_POLICIES.join('|')})`);
  }

  has(name: string): boolean {
    try {
      this.get(name);
      return true;
    } catch {
      return false;
    }
  }

  names(): string[] {
    return [...this.entries.keys()];
  }

  /** Real (non-mock) models the user configured in the models file. */
  /** The vLLM entry that serves checkpoints of `base` as LoRA modules (vllm.loraBases), if any. */
  vllmServerFor(base: string): ModelSpec | undefined {
    for (const [name, entry] of this.entries) if (entry.provider === 'vllm' && entry.vllm?.loraBases.includes(base)) return { name, ...entry };
    return undefined;
  }

  configured(): string[] {
    return this.names().filter((n) => this.fromFile.has(n) && this.entries.get(n)?.provider !== 'mock');
  }
}

/** Builds a registry from a parsed models file (plus the built-in mock entries). */
export function buildRegistry(file: ModelsFile = { models: {} }): ModelRegistry {
  const entries = new Map<string, ModelEntry>();
  for (const p of ['oracle', 'null', 'random'] as const) entries.set(`${MOCK_PREFIX}${p}`, mockEntry(p));
  for (const [i, c] of LOCAL_MODELS.entries()) entries.set(`${LOCAL_PREFIX}${c.short}`, builtinLocalEntry(c, i));
  for (const [name, entry] of Object.entries(file.models)) {
    // A models-file entry replaces a built-in one of the same name; the local server settings it leaves
    // out (port, threads, context, slots) come from the built-in entry.
    const builtin = entries.get(name);
    const merged: ModelEntry =
      builtin?.provider === 'local' && entry.provider === 'local'
        ? {
            ...entry,
            port: entry.port ?? builtin.port,
            threads: entry.threads ?? builtin.threads,
            ctxPerSlot: entry.ctxPerSlot ?? builtin.ctxPerSlot,
            parallel: entry.parallel ?? builtin.parallel,
          }
        : entry;
    if (merged.provider === 'local' && merged.port === undefined) throw new ModelConfigError(`model ${name}: a provider "local" entry needs a "port"`);
    entries.set(name, merged);
  }
  // A server given the machine in this process (setLocalThreads) keeps a models file's own `threads`.
  for (const [name, threads] of threadOverrides) {
    const e = entries.get(name);
    if (e?.provider === 'local' && file.models[name]?.threads === undefined) entries.set(name, { ...e, threads });
  }
  // Each base's checkpoints are served by at most one vLLM entry, and that base must exist.
  const servedBy = new Map<string, string>();
  for (const [name, entry] of entries) {
    for (const base of entry.vllm?.loraBases ?? []) {
      const b = entries.get(base);
      if (!b) throw new ModelConfigError(`model ${name}: vllm.loraBases names ${JSON.stringify(base)}, which is not in the registry`);
      if (b.provider === 'vllm')
        throw new ModelConfigError(
          `model ${name}: vllm.loraBases names ${base}, a vllm entry; name the base the checkpoints were trained on (e.g. local/qwen2.5-coder-0.5b)`,
        );
      const other = servedBy.get(base);
      if (other) throw new ModelConfigError(`models ${other} and ${name} both serve the checkpoints of ${base} (vllm.loraBases); keep one`);
      servedBy.set(base, name);
    }
  }
  return new ModelRegistry(entries, file.default ?? [], new Set(Object.keys(file.models)));
}

/** Reads and validates a models file; a missing file is an empty one. */
export function loadModelsFile(file: string = env().PAU_MODELS_FILE): ModelsFile {
  if (!fs.existsSync(file)) return { models: {} };
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ModelConfigError(`${file}: not valid JSON: ${(err as Error).message}`);
  }
  const parsed = modelsFileSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ModelConfigError(`${file}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  }
  return parsed.data;
}

const threadOverrides = new Map<string, number>();
/**
 * Gives a local model's server `threads` threads in this process from now on (its next request restarts it
 * so): `npm start` gives the judge every core once the benchmark's agents are done, for its card. A models
 * file that sets the model's `threads` wins.
 */
export function setLocalThreads(name: string, threads: number): void {
  threadOverrides.set(name, threads);
  reloadModels();
}

/** What identifies the models file's contents without reading it: one stat (null: no file). */
function fileStamp(file: string): string | null {
  try {
    const s = fs.statSync(file);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return null;
  }
}

interface LoadedRegistry {
  registry: ModelRegistry;
  file: string;
  stamp: string | null;
  /** A later version of the file that did not load (the registry above is still served), and why. */
  broken?: { stamp: string | null; error: string };
}

let cached: LoadedRegistry | undefined;

/**
 * The process-wide registry (built-ins + the models file), read again whenever the file changes: one stat
 * per lookup, so a long-running worker serves an entry added or edited since it started, at its next model
 * call, without a restart. A change that does not load (a file saved half-written, an invalid entry) leaves
 * a process that had a registry on it, saying so once on stderr; a process with none fails as before.
 */
export function models(): ModelRegistry {
  const file = env().PAU_MODELS_FILE;
  const stamp = fileStamp(file);
  if (cached && cached.file === file && (cached.stamp === stamp || cached.broken?.stamp === stamp)) return cached.registry;
  try {
    cached = { registry: buildRegistry(loadModelsFile(file)), file, stamp };
  } catch (err) {
    if (!cached || cached.file !== file || !(err instanceof ModelConfigError)) throw err;
    cached.broken = { stamp, error: err.message };
    console.warn(`models: ${err.message}; serving the models as they were before this change until the file loads again`);
  }
  return cached.registry;
}

/** Read the models file again at the next models() (tests, a CLI that changed PAU_MODELS_FILE, new thread settings). */
export function reloadModels(): void {
  cached = undefined;
}

/** The API key for a model, from the variable it names; undefined when it names none. */
export function apiKeyFor(spec: ModelSpec, source: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!spec.apiKeyEnv) return undefined;
  const key = source[spec.apiKeyEnv]?.trim();
  if (!key) throw new ModelConfigError(`model ${spec.name}: environment variable ${spec.apiKeyEnv} is not set`);
  return key;
}

/** The local model `npm start` benchmarks when nothing is configured (beside the scripted anchors). */
export const DEFAULT_START_LOCAL_MODEL = `${LOCAL_PREFIX}qwen2.5-coder-0.5b`;
export const CALIBRATION_ANCHORS = ['mock-oracle', 'mock-random'] as const;

/**
 * The models `npm start` benchmarks: PAU_MODELS, else the file's default, else every configured model,
 * else (nothing configured) the built-in local 0.5B model beside the scripted anchors `mock-oracle` and
 * `mock-random` (`fallback`).
 */
export function startModels(registry: ModelRegistry = models()): { names: string[]; scripted: boolean; fallback: boolean } {
  const fromEnv =
    env()
      .PAU_MODELS?.split(',')
      .map((s) => s.trim())
      .filter(Boolean) ?? [];
  const names = fromEnv.length > 0 ? fromEnv : registry.defaults.length > 0 ? registry.defaults : registry.configured();
  if (names.length === 0) return { names: [DEFAULT_START_LOCAL_MODEL, ...CALIBRATION_ANCHORS], scripted: false, fallback: true };
  for (const n of names) registry.get(n);
  return { names, scripted: names.every((n) => registry.get(n).provider === 'mock'), fallback: false };
}

/** USD for a call's tokens. */
export function costUsd(spec: Pick<ModelEntry, 'inputUsdPerMTok' | 'outputUsdPerMTok'>, tokensIn: number, tokensOut: number): number {
  return (tokensIn * spec.inputUsdPerMTok + tokensOut * spec.outputUsdPerMTok) / 1e6;
}
