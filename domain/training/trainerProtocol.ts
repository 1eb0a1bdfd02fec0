// The trainer's wire contract seen from TypeScript (the Python side: trainer/pau_trainer/protocol.py). Both
// sides are held to the same golden cases, trainer/contract/ (test/training/trainerContract.pure.test.ts here,
// trainer/tests/test_contract.py there). Pure: zod schemas, exit codes, failure types; no I/O.
import { z } from 'zod';
import { sampledRolloutSchema } from './sampledWith';
import { sampledTokensSchema } from './sampledTokens';

/** How a GRPO group's centred rewards are scaled (trainer core_algos.py ADVANTAGE_SCALES). */
export const ADVANTAGE_SCALES = ['none', 'std'] as const;
export type AdvantageScale = (typeof ADVANTAGE_SCALES)[number];

export const TRAINER_COMMANDS = ['sft', 'grpo-update', 'export-gguf-lora', 'policy-shift'] as const;
export type TrainerCommand = (typeof TRAINER_COMMANDS)[number];

/** Exit codes of `python -m pau_trainer` (ExitCode in protocol.py). */
export const TRAINER_EXIT = { ok: 0, internal: 1, invalidSpec: 2, baseModel: 3, invalidData: 4, cancelled: 5 } as const;

const num = z.number().nullable(); // the trainer writes non-finite floats as null
/** A path in a spec: blank is refused (the trainer says which field). */
const pathText = z.string().regex(/\S/, 'must not be blank');

export const startEventSchema = z.looseObject({
  type: z.literal('start'),
  command: z.enum(TRAINER_COMMANDS),
  protocol: z.literal(1),
  pid: z.number().int(),
  output_dir: z.string(),
  total_steps: z.number().int(),
  resumed_from_step: z.number().int(),
  /** Processes of the job (torch.distributed ranks; PAU_TRAINER_PROCESSES); absent from older trainers. */
  processes: z.number().int().positive().optional(),
  /** The frozen base's dtype on rank 0 (bfloat16 on CUDA, float32 on CPU); absent from older trainers. */
  dtype: z.string().optional(),
  /** Whether the model recomputes its layers' activations in the backward pass (spec gradient_checkpointing). */
  gradient_checkpointing: z.boolean().optional(),
});
export const infoEventSchema = z.object({
  type: z.literal('info'),
  message: z.string(),
  /** Set while the trainer waits for its output_dir's lock: the pid the holder wrote (null: unreadable). */
  lock_holder_pid: z.number().int().nullable().optional(),
});
export const progressEventSchema = z.looseObject({
  type: z.literal('progress'),
  step: z.number().int(),
  total: z.number().int(),
  loss: num,
  tokens_per_s: num,
  elapsed_s: z.number(),
  /** CUDA only: rank 0's peak GPU memory since the job started. */
  peak_memory_bytes: z.number().int().optional(),
  /** Rank 0's peak resident set size since its process started (getrusage); absent from older trainers. */
  peak_rss_bytes: z.number().int().optional(),
});
export const savedEventSchema = z.looseObject({ type: z.literal('saved'), step: z.number().int(), checkpoint: z.string() });
export const cancelledEventSchema = z.object({ type: z.literal('cancelled'), step: z.number().int(), checkpoint: z.string().nullable() });
export const doneEventSchema = z.object({
  type: z.literal('done'),
  /** The checkpoint directory (for export-gguf-lora: the input adapter directory). */
  checkpoint: z.string(),
  /** The adapter file: adapter_model.safetensors in `checkpoint`, or the written .gguf for an export. */
  adapter: z.string(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  steps: z.number().int(),
  base_sha256: z.string().optional(),
  metrics: z.record(z.string(), z.unknown()),
});
export const errorEventSchema = z.object({
  type: z.literal('error'),
  code: z.enum(['invalid_spec', 'spec_mismatch', 'base_model_missing', 'base_model_corrupt', 'invalid_data', 'internal']),
  message: z.string(),
});

export const trainerEventSchema = z.discriminatedUnion('type', [
  startEventSchema,
  infoEventSchema,
  progressEventSchema,
  savedEventSchema,
  cancelledEventSchema,
  doneEventSchema,
  errorEventSchema,
]);
export type TrainerEvent = z.infer<typeof trainerEventSchema>;
export type DoneEvent = z.infer<typeof doneEventSchema>;
export type ProgressEvent = z.infer<typeof progressEventSchema>;

/** LoRA settings (spec.lora). */
export const loraSchema = z.strictObject({
  rank: z.number().int().positive().optional(),
  alpha: z.number().positive().optional(),
  dropout: z.number().min(0).lt(1).optional(),
  targets: z.array(z.string().min(1)).min(1).optional(),
});

/** Fields every training spec shares. output_dir is not here: runTrainerJob derives it from the job id. */
const commonSpec = {
  base_model: pathText,
  base_model_sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  init_adapter: pathText.optional(),
  /** Carry init_adapter's optimiser state (Adam's moments and step) into the job (a GRPO epoch after the first). */
  init_optimizer: z.boolean().optional(),
  lora: loraSchema.optional(),
  lr: z.number().positive().optional(),
  max_length: z.number().int().positive().optional(),
  seed: z.number().int().min(0).optional(),
  save_every: z.number().int().positive().optional(),
  keep_saves: z.number().int().positive().optional(),
  max_steps: z.number().int().positive().optional(),
  threads: z.number().int().positive().optional(),
  device: z.enum(['auto', 'cpu', 'cuda']).optional(),
  max_grad_norm: z.number().positive().optional(),
  weight_decay: z.number().min(0).optional(),
  warmup_steps: z.number().int().min(0).optional(),
  /** Recompute each layer's activations in the backward pass instead of keeping them; default true (docs/trainer.md, "Memory"). */
  gradient_checkpointing: z.boolean().optional(),
};

/**
 * One line of the trainer's SFT data (and the conversation part of a GRPO rollout line): OpenAI chat
 * messages (assistant messages may carry the `reasoning_content` they generated), and the request each
 * trained assistant message was generated from: `requests[j] = {message: i, tools: k | null}` says message i
 * was generated by a request of messages[:i] (without earlier reasoning, which is never sent back) and the
 * tools `tool_sets[k]` (null: none). Hand-written data may give one `tools` list for every request instead.
 * `length_cut`: the assistant messages cut at max_tokens. Parsed again by trainer/pau_trainer/chat.py
 * (`line_requests`, `validate_messages`).
 */
const chatMessageSchema = z.looseObject({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string().nullable().optional(),
  reasoning_content: z.string().optional(),
});
export const trainerLineSchema = z
  .looseObject({
    messages: z.array(chatMessageSchema).min(1),
    tools: z.array(z.record(z.string(), z.unknown())).optional(),
    tool_sets: z.array(z.array(z.record(z.string(), z.unknown()))).optional(),
    requests: z
      .array(z.strictObject({ message: z.number().int().min(0), tools: z.number().int().min(0).nullable() }))
      .min(1)
      .optional(),
    length_cut: z.array(z.number().int().min(0)).optional(),
    /** GRPO rollouts: per policy message the ids its server sampled and their log-probs, or null. */
    sampled: z.array(sampledTokensSchema.nullable()).optional(),
  })
  .superRefine((line, ctx) => {
    if (line.requests && line.tools) ctx.addIssue({ code: 'custom', message: 'give either tools or requests with tool_sets, not both' });
    for (const r of line.requests ?? []) {
      if (line.messages[r.message]?.role !== 'assistant')
        ctx.addIssue({ code: 'custom', message: `requests names message ${r.message}, not an assistant message` });
      if (r.tools !== null && r.tools >= (line.tool_sets?.length ?? 0))
        ctx.addIssue({ code: 'custom', message: `requests names tool set ${r.tools}, which does not exist` });
    }
  });
export type TrainerLine = z.infer<typeof trainerLineSchema>;

export const sftSpecSchema = z.strictObject({
  ...commonSpec,
  /** JSONL of trainerLineSchema lines. */
  data: pathText,
  epochs: z.number().positive().optional(),
  batch_size: z.number().int().positive().optional(),
});

export const grpoSpecSchema = z.strictObject({
  ...commonSpec,
  /** JSONL of rollouts (docs/training.md, "grpo-update"). */
  rollouts: pathText,
  ppo_epochs: z.number().int().positive().optional(),
  mini_batch_size: z.number().int().positive().optional(),
  clip_eps: z.number().positive().lt(1).optional(),
  clip_eps_low: z.number().positive().lt(1).optional(),
  clip_eps_high: z.number().positive().optional(),
  kl_beta: z.number().min(0).optional(),
  /** The rollouts' sampling temperature: the trainer takes every log-prob as log_softmax(logits / T). */
  temperature: z.number().positive().optional(),
  /** Truncated importance sampling: each sampled token's term weighed by min(pi_old / pi_sampler, tis_cap); > 1. */
  tis_cap: z.number().gt(1).optional(),
  advantage: z
    .strictObject({
      /** The reward names of `pau grpo train` (GRPO_REWARDS), meaning the same on both sides (absent: mix, its default). */
      mode: z.enum(['outcome', 'aac', 'mix']).optional(),
      step_weight: z.number().optional(),
      /** mix only: the outcome term's weight on the exploration steps. */
      outcome_weight: z.number().optional(),
      /** The group's divisor (docs/training.md, "Advantages"): none (Dr. GRPO) or the std floored at std_floor. */
      scale: z.enum(ADVANTAGE_SCALES).optional(),
      std_floor: z.number().min(0).optional(),
      epsilon: z.number().positive().optional(),
    })
    .optional(),
});

/** policy-shift (trainer shift.py): KL(adapter's policy || base) on the policy's tokens of given conversations. */
export const shiftSpecSchema = z.strictObject({
  base_model: pathText,
  base_model_sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  /** A complete checkpoint directory (has DONE). */
  adapter_dir: pathText,
  /** JSONL: the GRPO rollout line's conversation fields (rewards are not read). */
  episodes: pathText,
  temperature: z.number().positive().optional(),
  max_length: z.number().int().positive().optional(),
  threads: z.number().int().positive().optional(),
  device: z.enum(['auto', 'cpu', 'cuda']).optional(),
});

export const exportSpecSchema = z.strictObject({
  /** A complete checkpoint directory (has DONE). */
  adapter_dir: pathText,
  base_model: pathText,
  /** Where to write the .gguf; default: <job dir>/adapter.gguf. */
  output: pathText.optional(),
});

/** A spec file's null fields are absent fields, at every level of objects (as the trainer reads them). */
function withoutNulls(v: unknown): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([, x]) => x !== null)
      .map(([k, x]) => [k, withoutNulls(x)]),
  );
}

/**
 * The spec file the trainer reads, per command: the job's spec plus the paths runTrainerJob adds (output_dir;
 * for an export, output filled in). A spec may repeat its command. The golden cases are in trainer/contract/.
 */
export const trainerSpecFileSchemas = {
  sft: z.preprocess(withoutNulls, sftSpecSchema.extend({ command: z.literal('sft').optional(), output_dir: pathText })),
  'grpo-update': z.preprocess(withoutNulls, grpoSpecSchema.extend({ command: z.literal('grpo-update').optional(), output_dir: pathText })),
  'export-gguf-lora': z.preprocess(
    withoutNulls,
    exportSpecSchema.extend({
      command: z.literal('export-gguf-lora').optional(),
      output: pathText,
      output_dir: z.string().optional(),
    }),
  ),
  'policy-shift': z.preprocess(withoutNulls, shiftSpecSchema.extend({ command: z.literal('policy-shift').optional(), output_dir: z.string().optional() })),
} as const satisfies Record<TrainerCommand, z.ZodType>;

/** Input of the runTrainerJob activity. The job id names the job's directory, so a retry resumes it. */
/**
 * The registered checkpoint `spec.init_adapter` is (its id): a host that does not have that directory
 * fetches the checkpoint's stored files and continues from its own verified copy.
 */
const initCheckpointSchema = z.string().min(1).optional();

export const trainerJobInputSchema = z.discriminatedUnion('command', [
  z.strictObject({ jobId: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/), command: z.literal('sft'), spec: sftSpecSchema, initCheckpoint: initCheckpointSchema }),
  z.strictObject({
    jobId: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/),
    command: z.literal('grpo-update'),
    spec: grpoSpecSchema,
    initCheckpoint: initCheckpointSchema,
    /**
     * The batch's rollouts and the adapters that sampled them: given, the job refuses (SampledWithMismatch)
     * unless each was sampled with the adapter it computes old log-probs with (domain/training/sampledWith.ts).
     */
    sampledWith: z.array(sampledRolloutSchema).optional(),
  }),
  z.strictObject({ jobId: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/), command: z.literal('export-gguf-lora'), spec: exportSpecSchema }),
  z.strictObject({ jobId: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/), command: z.literal('policy-shift'), spec: shiftSpecSchema }),
]);
export type TrainerJobInput = z.infer<typeof trainerJobInputSchema>;

export interface TrainerJobResult {
  jobId: string;
  command: TrainerCommand;
  outputDir: string;
  done: DoneEvent;
  /** The step this attempt's trainer started from (0: from scratch; N: resumed from the save at step N). */
  resumedFromStep?: number;
}

/** What runTrainerJob heartbeats (Temporal UI shows it; a workflow can read it after a failure). */
export interface TrainerHeartbeat {
  phase: 'setup' | 'loading' | 'waiting-for-lock' | 'training' | 'saving';
  /** While waiting for the job directory's lock: the pid of the trainer holding it. */
  lockHolderPid?: number | null;
  step?: number;
  total?: number;
  loss?: number | null;
  tokensPerS?: number | null;
  lastSavedStep?: number;
  pid?: number;
  /** Processes the job runs as (rank 0's pid is `pid`). */
  processes?: number;
}
