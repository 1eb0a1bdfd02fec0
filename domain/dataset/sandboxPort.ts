// What the dataset build needs from the sandbox (activities/sandbox), typed by the sandbox contract
// (domain/sandbox/schemas), not by the sandbox's internals: run a batch of calls, and (when offered) its determinism check.
// `fromSandboxBatch` classifies the sandbox's per-call results for the filters.
import type { BuildLimits } from './config';
import type { BatchResult, CallResult, SandboxLimits, SandboxWork } from '../sandbox/schemas';
import { isLimit, isNotRun } from '../sandbox/errorTypes';
import type { ClassifiedCall } from './outcome';
import { addWork, NO_WORK, workOf } from '../sandbox/work';

/** What a batch gave back; a run with `audit` also carries its audit events, static flags and mode. */
export type PortBatchResult = Pick<BatchResult, 'results' | 'sourceError'> & Partial<Pick<BatchResult, 'mode' | 'events' | 'staticFlags'>>;

/** The sandbox's own determinism check, when it ran one. */
export interface DeterminismCheck {
  deterministic: boolean;
  stateless: boolean;
  flags: string[];
  /** The calls the check ran itself (not the caller's first run). */
  work?: SandboxWork;
}

export interface PortRunInput {
  source: string;
  entry: string;
  calls: string[];
  limits?: SandboxLimits;
  /** Record what each call touched and scan the source (the determinism check's first run). */
  audit?: boolean;
}

export interface DatasetSandbox {
  runBatch(input: PortRunInput): Promise<PortBatchResult>;
  /**
   * The sandbox's own determinism / statelessness check; without it the build runs the batch twice.
   * `first`: a run of the same calls with `audit` that the caller already made; it is the check's first
   * run (not repeated).
   */
  checkDeterminism?(input: PortRunInput, first?: PortBatchResult): Promise<DeterminismCheck>;
}

/**
 * The same sandbox, adding up the work of every call made through it (`total()`): what a check batch
 * reports, so the build can say how many calls it ran and how much of their time went to time limits.
 */
export function tallied(sandbox: DatasetSandbox): { sandbox: DatasetSandbox; total: () => SandboxWork } {
  let work = NO_WORK;
  const counted: DatasetSandbox = {
    runBatch: async (input) => {
      const r = await sandbox.runBatch(input);
      work = addWork(work, workOf(r.results));
      return r;
    },
  };
  const check = sandbox.checkDeterminism?.bind(sandbox);
  if (check)
    counted.checkDeterminism = async (input, first) => {
      const v = await check(input, first);
      if (v.work) work = addWork(work, v.work);
      return v;
    };
  return { sandbox: counted, total: () => work };
}

/** True when the typed encoding holds a value that is not a Python literal (an `other` object). */
export function hasNonLiteral(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return false;
  if (Array.isArray(v)) return v.some(hasNonLiteral);
  if ('other' in v) return true;
  return Object.values(v).some(hasNonLiteral);
}

export function fromSandboxBatch(b: PortBatchResult): { sourceError?: string; calls: ClassifiedCall[] } {
  const calls = b.results.map((r: CallResult): ClassifiedCall => {
    if (r.ok) return { ok: true, repr: r.repr, isNone: r.value === null, literal: !hasNonLiteral(r.value) };
    const t = r.error.type;
    if (isLimit(t)) return { ok: false, limit: `${t}: ${r.error.message}`.slice(0, 300), excType: t };
    if (isNotRun(t)) return { ok: false, sandboxError: `${t}: ${r.error.message}`.slice(0, 300), excType: t };
    return { ok: false, excType: t, message: r.error.message };
  });
  return b.sourceError ? { sourceError: `${b.sourceError.type}: ${b.sourceError.message}`.slice(0, 500), calls } : { calls };
}

export function portLimits(l: BuildLimits): SandboxLimits {
  return { timeoutMs: l.timeoutMs, memoryMb: l.memoryMb };
}
