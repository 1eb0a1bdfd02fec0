// What the dataset build needs from the sandbox (activities/sandbox), typed structurally so this file does
// not depend on the sandbox's internals: run a batch of calls, and (when offered) its determinism check.
// `fromSandboxBatch` turns the sandbox's per-call results into the filters' ObservedCall.
import type { SandboxLimits } from '../../datasets/config';
import type { ObservedCall } from '../../datasets/filters';

type Encoded = null | boolean | number | string | Encoded[] | { [k: string]: unknown };

export interface PortCallResult {
  ok: boolean;
  value?: unknown;
  repr?: string;
  error?: { type: string; message: string };
}

export interface PortBatchResult {
  results: PortCallResult[];
  sourceError: { type: string; message: string } | null;
}

export interface PortDeterminism {
  deterministic: boolean;
  stateless: boolean;
  flags: string[];
}

export interface PortRunInput {
  source: string;
  entry: string;
  calls: string[];
  limits?: Partial<{ timeoutMs: number; memoryMb: number }>;
}

export interface DatasetSandbox {
  runBatch(input: PortRunInput): Promise<PortBatchResult>;
  /** The sandbox's own determinism / statelessness check; without it the build runs the batch twice. */
  checkDeterminism?(input: PortRunInput): Promise<PortDeterminism>;
}

const LIMIT_ERRORS = new Set(['Timeout', 'MemoryLimit', 'OutputLimit', 'ResultLimit']);
const SANDBOX_ERRORS = new Set(['BadArguments', 'EntryNotFound', 'SandboxError']);

/** True when the typed encoding holds a value that is not a Python literal (an `other` object). */
export function hasNonLiteral(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return false;
  if (Array.isArray(v)) return v.some(hasNonLiteral);
  const o = v as Record<string, unknown>;
  if ('other' in o) return true;
  return Object.values(o).some(hasNonLiteral);
}

export function fromSandboxBatch(b: PortBatchResult): { sourceError?: string; calls: ObservedCall[] } {
  const calls = b.results.map((r): ObservedCall => {
    if (r.ok) return { ok: true, repr: r.repr ?? '', isNone: r.value === null, literal: !hasNonLiteral(r.value as Encoded) };
    const t = r.error?.type ?? 'Error';
    if (LIMIT_ERRORS.has(t)) return { ok: false, limit: `${t}: ${r.error?.message ?? ''}`.slice(0, 300), excType: t };
    if (SANDBOX_ERRORS.has(t)) return { ok: false, sandboxError: `${t}: ${r.error?.message ?? ''}`.slice(0, 300), excType: t };
    return { ok: false, excType: t, message: r.error?.message ?? '' };
  });
  return b.sourceError ? { sourceError: `${b.sourceError.type}: ${b.sourceError.message}`.slice(0, 500), calls } : { calls };
}

export function portLimits(l: SandboxLimits): PortRunInput['limits'] {
  return { timeoutMs: l.timeoutMs, memoryMb: l.memoryMb };
}
