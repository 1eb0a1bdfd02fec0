// The one place the environment is read. Every variable is validated by zod; a bad value stops start-up
// with the variable's name and what is wrong with it (see ConfigError).
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { maskUrl } from './redact';
import { parseGpuList } from '../domain/training/gpuSplit';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const port = z.coerce.number().int().min(1).max(65535);
const positiveInt = z.coerce.number().int().min(1);
const optionalString = z
  .string()
  .trim()
  .transform((s) => (s === '' ? undefined : s))
  .optional();

const boolFlag = z
  .enum(['0', '1', 'true', 'false', 'yes', 'no', ''])
  .optional()
  .transform((v) => v === '1' || v === 'true' || v === 'yes');

export const envSchema = z.object({
  // Temporal: an external cluster / Temporal Cloud when set; otherwise the local dev server.
  TEMPORAL_ADDRESS: optionalString,
  TEMPORAL_NAMESPACE: z.string().trim().min(1).default('default'),
  TEMPORAL_API_KEY: optionalString,
  TEMPORAL_TLS: boolFlag,
  TEMPORAL_CLI_PATH: optionalString,
  // The payload codec's key (config/payloadCodec.ts): 32 bytes, base64 or base64url, given directly or in a
  // file (one per deployment, shared by every client and worker); unset: the local stack's secret
  // <PAU_STATE_DIR>/secrets/temporal-codec-key. CUTOVER: when the key came into use (ISO time); plain
  // payloads of workflows started before it are still accepted (histories that predate the codec).
  PAU_TEMPORAL_CODEC_KEY: optionalString,
  PAU_TEMPORAL_CODEC_KEY_FILE: optionalString,
  PAU_TEMPORAL_CODEC_CUTOVER: optionalString.pipe(z.iso.datetime({ offset: true }).optional()),
  // The codec endpoint for the owner's Web UI and CLI (`pau codec-server`, started by `stack up`): loopback.
  PAU_CODEC_SERVER_PORT: port.default(8239),
  PAU_TEMPORAL_PORT: port.default(7233),
  PAU_TEMPORAL_UI_PORT: port.default(8233),
  PAU_TEMPORAL_UI_URL: optionalString,

  // Postgres: an external database when set; otherwise the project-local cluster.
  DATABASE_URL: optionalString.pipe(z.url({ protocol: /^postgres(ql)?$/ }).optional()),
  PAU_PG_PORT: port.default(54329),

  // Where local state (databases, pid files, logs) lives.
  PAU_STATE_DIR: z.string().trim().min(1).default(path.join(PROJECT_ROOT, '.data')),
  // Where the source datasets are read from.
  PAU_DATA_DIR: z
    .string()
    .trim()
    .min(1)
    .default(path.join(PROJECT_ROOT, '..', 'shared', 'datasets')),
  // Heavy things shared by every checkout of this machine (model files, virtualenvs): see cacheDir().
  PAU_CACHE_DIR: optionalString,
  PAU_MODELS_DIR: optionalString,
  // Local model servers (llama.cpp) listen on 127.0.0.1 from this port up, one port per built-in model.
  PAU_MODEL_PORT_BASE: port.default(8471),
  // Python interpreter for the sandbox (the project's virtualenv by default).
  PAU_PYTHON: z
    .string()
    .trim()
    .min(1)
    .default(path.join(PROJECT_ROOT, '.venv', 'bin', 'python')),
  // Sandbox (activities/sandbox, docs/sandbox.md). MODE: auto = strongest available, loudly reporting a
  // fallback; an explicit mode that cannot run is an error. The limits are per-call defaults.
  PAU_SANDBOX_MODE: z.enum(['auto', 'bwrap', 'seccomp', 'none']).default('auto'),
  PAU_SANDBOX_BWRAP: z.string().trim().min(1).default('bwrap'),
  PAU_SANDBOX_WORKERS: positiveInt.max(256).optional(),
  // Where benchmark episodes run their method calls (EpisodeInput.sandbox): `inline` (default) = inside the
  // model turn on the `pau` worker's own pool (one activity per step); `queue` = activities on
  // `pau-sandbox`, for a sandbox on other hosts than the `pau` workers.
  PAU_SANDBOX_PLACEMENT: z.enum(['queue', 'inline']).default('inline'),
  PAU_SANDBOX_TIMEOUT_MS: positiveInt.default(2000),
  PAU_SANDBOX_MEMORY_MB: positiveInt.default(512),
  PAU_SANDBOX_STDOUT_BYTES: positiveInt.default(65536),
  PAU_SANDBOX_RECURSION_LIMIT: positiveInt.default(1000),
  PAU_SANDBOX_RESULT_BYTES: positiveInt.default(1_000_000),

  // Worker concurrency per queue (activities in flight per process).
  PAU_WORKER_MAIN_CONCURRENCY: positiveInt.default(50),
  // Unset: 4 per sandbox executor (batches then wait in the pool's own queue, not for a Temporal task slot).
  PAU_WORKER_SANDBOX_CONCURRENCY: positiveInt.optional(),
  PAU_WORKER_GPU_CONCURRENCY: positiveInt.default(1),
  // The GPUs training jobs of this host's pau-gpu worker use (their CUDA_VISIBLE_DEVICES: `0-5`, `0,1,2`),
  // so they do not share the vLLM servers' (`vllm.gpus`); unset: every GPU (docs/scale.md).
  PAU_TRAINER_GPUS: z
    .string()
    .trim()
    .min(1)
    .superRefine((raw, ctx) => {
      try {
        parseGpuList(raw);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
      }
    })
    .optional(),
  PAU_WORKER_WORKFLOW_CONCURRENCY: positiveInt.default(200),
  // The most model calls the whole deployment can have in flight (the sum of PAU_WORKER_MAIN_CONCURRENCY
  // over its `pau` workers). A model whose cap is at least this cannot reach it: its advisory-lock slots
  // are then not taken (activities/llm/concurrency.ts). Unset: always taken.
  PAU_LLM_MAX_CALLERS: positiveInt.optional(),
  // A model whose request timeout is at most this many seconds (the scripted models: 30 s) runs its
  // episode turns as local activities (no activity task round trip through Temporal); longer ones, and
  // any turn whose local attempt failed, as normal activities. 0: never local. A chain of local turns
  // stays in one workflow task; a run's cancellation still stops them at the next turn boundary because
  // each local turn reads runs.cancel_requested_at (docs/sandbox.md).
  PAU_LOCAL_TURN_MAX_SECONDS: z.coerce.number().int().min(0).max(120).default(30),

  // Models (config/models.ts): the models file, the models `npm start` benchmarks (comma list; unset →
  // the file's `default`, else a local model beside the scripted anchors), and the scripted-model server
  // the mock models talk to: PAU_MOCK_LLM_URL, else the local stack's (`stack up` runs `pau mock-llm` on
  // 127.0.0.1:PAU_MOCK_LLM_PORT). Workers never start one themselves.
  PAU_MODELS_FILE: z.string().trim().min(1).default(path.join(PROJECT_ROOT, 'pau.models.json')),
  PAU_MODELS: optionalString,
  PAU_MOCK_LLM_URL: optionalString.pipe(z.url().optional()),
  PAU_MOCK_LLM_PORT: port.default(8399),
  // The judge (and code-writer) model for benchmark runs; see scripts/client/judgeChoice.ts.
  PAU_JUDGE_MODEL: optionalString,

  // Where registered checkpoints' files are stored so every host can fetch them (docs/checkpoints.md,
  // "Checkpoints that travel"): `postgres` (default: the database every worker already reaches) or `s3`
  // (an S3-compatible bucket: PAU_S3_ENDPOINT, PAU_S3_BUCKET, PAU_S3_REGION, PAU_S3_PREFIX, credentials in
  // AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY; config/blobStore.ts). Fetched files are cached per host in
  // PAU_CHECKPOINT_CACHE_DIR (default <cache dir>/checkpoints).
  PAU_CHECKPOINT_STORE: z.enum(['postgres', 's3']).default('postgres'),
  PAU_S3_ENDPOINT: optionalString.pipe(z.url({ protocol: /^https?$/ }).optional()),
  PAU_S3_BUCKET: optionalString,
  PAU_S3_REGION: z.string().trim().min(1).default('us-east-1'),
  PAU_S3_PREFIX: z.string().trim().default('pau/blobs/'),
  PAU_CHECKPOINT_CACHE_DIR: optionalString,

  LOG_LEVEL: z.enum(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR']).default('WARN'),
});

export type Env = z.infer<typeof envSchema>;

export class ConfigError extends Error {
  constructor(public readonly issues: { variable: string; problem: string }[]) {
    super('Invalid configuration:\n' + issues.map((i) => `  ${i.variable}: ${i.problem}`).join('\n'));
    this.name = 'ConfigError';
  }
}

/** Parses an environment (process.env by default). Throws ConfigError naming each bad variable. */
export function parseEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const picked: Record<string, string | undefined> = {};
  for (const key of Object.keys(envSchema.shape)) picked[key] = source[key];
  const result = envSchema.safeParse(picked);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => ({
        variable: String(issue.path[0] ?? '(environment)'),
        problem: `${issue.message} (got ${shownValue(String(issue.path[0]), picked[String(issue.path[0])])})`,
      })),
    );
  }
  return result.data;
}

/** `PAU_CACHE_DIR`, else `${XDG_CACHE_HOME:-$HOME/.cache}/pau`: shared by all checkouts of the machine. */
export function cacheDir(e: Env = env(), source: NodeJS.ProcessEnv = process.env): string {
  if (e.PAU_CACHE_DIR) return path.resolve(e.PAU_CACHE_DIR);
  const xdg = source.XDG_CACHE_HOME?.trim();
  return path.join(xdg ? xdg : path.join(source.HOME?.trim() || os.homedir(), '.cache'), 'pau');
}

/** Where local model files live: `PAU_MODELS_DIR`, else `<cacheDir>/models`. */
export function modelsDir(e: Env = env()): string {
  return e.PAU_MODELS_DIR ? path.resolve(e.PAU_MODELS_DIR) : path.join(cacheDir(e), 'models');
}

/** A bad value as an error message may show it: a URL's password masked, a key not at all. */
function shownValue(variable: string, value: string | undefined): string {
  if (value === undefined) return 'null';
  if (/KEY|SECRET|TOKEN|PASSWORD/.test(variable)) return '(hidden)';
  return JSON.stringify(maskUrl(value));
}

let cached: Env | undefined;
/** The validated environment of this process, parsed once. */
export function env(): Env {
  cached ??= parseEnv();
  return cached;
}

/** Parse the environment again at the next env() (a script that sets variables after a first read). */
export function reloadEnv(): void {
  cached = undefined;
}
