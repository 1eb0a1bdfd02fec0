// The sandbox contract as zod schemas; every TypeScript type here is inferred from them. What the
// executor's children return is validated with the same schemas (platform/sandbox/wire.ts), so a drift
// fails loudly.
import { z } from 'zod';
import { encodedValueSchema } from '../python/codec';
import { rangeSchema, wholeRange } from '../common/numberRange';

/** A call's arguments: one Python-literal string per argument, or one string with the whole list. */
export const callSpecSchema = z.union([z.array(z.string().max(1_000_000)).max(64), z.string().max(1_000_000)]);
export type CallSpec = z.infer<typeof callSpecSchema>;

/** A call's time limit (10 ms to 10 minutes) and memory limit (32 MiB to 64 GiB): also `pau sandbox exec`'s flags. */
export const TIMEOUT_MS_RANGE = wholeRange(10, 600_000);
export const MEMORY_MB_RANGE = wholeRange(32, 65_536);

export const limitsSchema = z.object({
  timeoutMs: rangeSchema(TIMEOUT_MS_RANGE),
  memoryMb: rangeSchema(MEMORY_MB_RANGE),
  stdoutBytes: z
    .number()
    .int()
    .min(0)
    .max(64 * 1024 * 1024),
  recursionLimit: z.number().int().min(50).max(100_000),
  resultBytes: z
    .number()
    .int()
    .min(1024)
    .max(256 * 1024 * 1024),
});
export type Limits = z.infer<typeof limitsSchema>;
/** Limits a caller overrides (the rest are the sandbox's defaults): the one limits type of callers. */
export const sandboxLimitsSchema = limitsSchema.partial();
export type SandboxLimits = z.infer<typeof sandboxLimitsSchema>;

export const runBatchInputSchema = z.object({
  source: z.string().min(1).max(2_000_000),
  entry: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a Python identifier'),
  calls: z.array(callSpecSchema).max(100_000),
  coverage: z.boolean().optional(),
  /** Record what each call touched (audit events, mutated globals) and scan the source statically. */
  audit: z.boolean().optional(),
  limits: sandboxLimitsSchema.optional(),
});
export type RunBatchInput = z.infer<typeof runBatchInputSchema>;

export const errorInfoSchema = z.object({ type: z.string(), message: z.string() });
export type ErrorInfo = z.infer<typeof errorInfoSchema>;

export const callResultSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), value: encodedValueSchema, repr: z.string(), stdout: z.string(), ms: z.number() }),
  z.object({ ok: z.literal(false), error: errorInfoSchema, stdout: z.string(), ms: z.number() }),
]);
export type CallResult = z.infer<typeof callResultSchema>;

/**
 * What equality and diagnostics compare of a call result: the value (with its repr when known) or the
 * exception. Every CallResult is one; tests and stored rows may carry less (no stdout, no time).
 */
export const outcomeSchema = z.discriminatedUnion('ok', [
  callResultSchema.options[0].pick({ ok: true, value: true }).extend({ repr: z.string().optional() }),
  callResultSchema.options[1].pick({ ok: true }).extend({ error: errorInfoSchema.partial({ message: true }) }),
]);
export type Outcome = z.infer<typeof outcomeSchema>;

const hitTotal = z.object({ hit: z.number().int(), total: z.number().int() });
const arc = z.tuple([z.number().int(), z.number().int()]);
export const coverageSchema = z.object({
  lines: hitTotal,
  branches: hitTotal,
  missingLines: z.array(z.number().int()),
  missingBranchArcs: z.array(arc),
  executedArcs: z.array(arc),
});
export type Coverage = z.infer<typeof coverageSchema>;

export const SANDBOX_MODES = ['bwrap+seccomp', 'bwrap', 'seccomp', 'none'] as const;
export const sandboxModeSchema = z.enum(SANDBOX_MODES);
export type SandboxMode = z.infer<typeof sandboxModeSchema>;

export const batchResultSchema = z.object({
  mode: sandboxModeSchema,
  results: z.array(callResultSchema),
  coverage: coverageSchema.nullable(),
  /** The source did not compile: every call carries this error. */
  sourceError: errorInfoSchema.nullable(),
  coverageError: z.string().optional(),
  staticFlags: z.array(z.string()).optional(),
  /** Per call, with `audit`: what the call touched. */
  events: z.array(z.array(z.string())).optional(),
});
export type BatchResult = z.infer<typeof batchResultSchema>;

export const determinismInputSchema = z.object({
  source: runBatchInputSchema.shape.source,
  entry: runBatchInputSchema.shape.entry,
  calls: z.array(callSpecSchema).min(1).max(10_000),
  limits: sandboxLimitsSchema.optional(),
});
export type DeterminismInput = z.infer<typeof determinismInputSchema>;

/** How much sandbox work some calls were (sums: domain/sandbox/work.ts). */
export const sandboxWorkSchema = z.object({
  /** Calls run, each in its own fresh process. */
  calls: z.number().int().nonnegative(),
  /** Their summed run time, ms (`CallResult.ms`: a finished call's own time in its process, set-up excluded; a
   * stopped call's time until the executor stopped it). */
  ms: z.number().nonnegative(),
  /** Calls stopped by their time limit, and the part of `ms` they took. */
  timeouts: z.number().int().nonnegative(),
  timeoutMs: z.number().nonnegative(),
});
export type SandboxWork = z.infer<typeof sandboxWorkSchema>;

export const determinismVerdictSchema = z.object({
  deterministic: z.boolean(),
  stateless: z.boolean(),
  flags: z.array(z.string()),
  /** The calls this check ran itself (runs B and C, and A when the caller did not give it): see domain/sandbox/work.ts. */
  work: sandboxWorkSchema,
  details: z.object({
    runs: z.array(z.string()),
    mismatches: z.array(z.object({ call: z.number().int(), outcomes: z.array(z.string()) })),
    eventsByCall: z.array(z.array(z.string())),
    staticFlags: z.array(z.string()),
    mode: sandboxModeSchema,
  }),
});
export type DeterminismVerdict = z.infer<typeof determinismVerdictSchema>;
