// One batch (one method, many calls) on one executor: each call is one job in a fresh child; the calls
// go in BATCH messages of up to CHUNK_CALLS jobs (wire.ts), the next one sent while the executor still
// has half a message of calls to run, so it never waits for this process between calls. Then, for coverage or
// audit, one more job analyses the source over the arcs the calls executed. Turns the executor's end
// records into the sandbox's error types, validates every child result (it is untrusted), and stops
// sending calls once the source turned out not to compile.
import os from 'node:os';
import { SandboxCrash, type BatchProgress, type ExecutorProcess, type JobOutcome } from './executorProcess';
import type { CallResult, Coverage, ErrorInfo, Limits, RunBatchInput } from '../../domain/sandbox/schemas';
import { SANDBOX_ERROR } from '../../domain/sandbox/errorTypes';
import { CHILD_SETUP_FAILED, childAnalysisSchema, childCallResultSchema, type JobLimits } from './wire';

/** Calls per BATCH message, and at most this many bytes of jobs (a source can be large). A source that
 * does not compile stops the batch after at most two messages. */
const CHUNK_CALLS = 64;
const CHUNK_BYTES = 8 << 20;
const MAX_ARC_LINE = 10 ** 7;
const ANALYSIS_TIMEOUT_MS = 10_000;
const ANALYSIS_RESULT_BYTES = 1 << 26;

export interface BatchDone {
  coverage: Coverage | null;
  sourceError: ErrorInfo | null;
  coverageError?: string;
  staticFlags?: string[];
}

export interface BatchOutput {
  results: CallResult[];
  events: string[][];
  done: BatchDone;
}

function err(type: string, message: string, ms: number, stdout = ''): CallResult {
  return { ok: false, error: { type, message }, stdout, ms };
}

const SIGNALS = new Map<number, string>(Object.entries(os.constants.signals).map(([name, n]) => [n, name]));

/** A job that ended without a usable result, as the call's error. */
function limitError(o: JobOutcome, lim: JobLimits, stdout: string): CallResult | undefined {
  const { status, ms } = o.end;
  if (status === SANDBOX_ERROR.timeout) return err(SANDBOX_ERROR.timeout, `the call did not finish within ${lim.timeoutMs} ms`, ms, stdout);
  if (status === SANDBOX_ERROR.outputLimit) return err(SANDBOX_ERROR.outputLimit, `the call wrote more than ${lim.stdoutBytes} bytes to stdout`, ms, stdout);
  if (status === SANDBOX_ERROR.resultLimit) return err(SANDBOX_ERROR.resultLimit, `the call wrote a result over ${lim.resultBytes} bytes`, ms, stdout);
  if (status === 'Lost') return err(SANDBOX_ERROR.sandboxError, "the call's process died before it received its job", ms, stdout);
  if (status !== 'NoResult') return undefined;
  const { signal, exit } = o.end;
  if (signal !== undefined) {
    if (signal === os.constants.signals.SIGXCPU) {
      return err(SANDBOX_ERROR.timeout, `the call used more than its CPU time limit (${lim.timeoutMs} ms)`, ms, stdout);
    }
    if (signal === os.constants.signals.SIGSEGV) {
      return err(SANDBOX_ERROR.sandboxError, 'the call crashed the interpreter (SIGSEGV, e.g. a C stack overflow)', ms, stdout);
    }
    if (signal === os.constants.signals.SIGSYS) return err(SANDBOX_ERROR.sandboxError, 'the call made a forbidden system call', ms, stdout);
    return err(SANDBOX_ERROR.sandboxError, `the call was killed by ${SIGNALS.get(signal) ?? String(signal)}`, ms, stdout);
  }
  if (exit === CHILD_SETUP_FAILED) return err(SANDBOX_ERROR.sandboxError, "the sandbox could not set up the call's process", ms, stdout);
  if (exit !== undefined) return err(SANDBOX_ERROR.sandboxError, `the call exited without a result (status ${exit})`, ms, stdout);
  return err(SANDBOX_ERROR.sandboxError, 'the call vanished without a result', ms, stdout);
}

interface CallOutcome {
  result: CallResult;
  arcs: unknown[] | undefined;
  events: unknown[] | undefined;
  sourceError: boolean;
}

function callOutcome(o: JobOutcome, lim: JobLimits): CallOutcome {
  const stdout = o.stdout.toString('utf8');
  const failed = limitError(o, lim, stdout);
  if (failed) return { result: failed, arcs: undefined, events: undefined, sourceError: false };
  let parsed: ReturnType<typeof childCallResultSchema.safeParse> | undefined;
  try {
    parsed = childCallResultSchema.safeParse(JSON.parse(o.result.toString('utf8')));
  } catch {
    parsed = undefined;
  }
  if (!parsed?.success) {
    return {
      result: err(SANDBOX_ERROR.sandboxError, 'the call wrote an unreadable result', o.end.ms, stdout),
      arcs: undefined,
      events: undefined,
      sourceError: false,
    };
  }
  const { arcs, events, sourceError, ms, ...rest } = parsed.data;
  const result: CallResult = rest.ok
    ? { ok: true, value: rest.value, repr: rest.repr, stdout, ms: ms ?? o.end.ms }
    : { ok: false, error: rest.error, stdout, ms: ms ?? o.end.ms };
  return { result, arcs, events, sourceError: sourceError === true && !rest.ok };
}

/** Arcs come from the (untrusted) child: keep only pairs of small ints. */
function addArcs(into: Map<string, [number, number]>, raw: unknown[] | undefined): void {
  for (const a of raw ?? []) {
    if (Array.isArray(a) && a.length === 2 && a.every((x) => Number.isInteger(x) && Math.abs(x as number) < MAX_ARC_LINE)) {
      const pair = a as [number, number];
      into.set(`${pair[0]},${pair[1]}`, pair);
    }
  }
}

function auditEvents(raw: unknown[] | undefined): string[] {
  return (raw ?? []).slice(0, 50).map((e) => (typeof e === 'string' ? e : (JSON.stringify(e) ?? String(e))).slice(0, 200));
}

export function jobLimits(limits: Limits): JobLimits {
  return {
    timeoutMs: limits.timeoutMs,
    cpuSeconds: Math.ceil(limits.timeoutMs / 1000) + 1, // RLIMIT_CPU: a backstop behind the wall deadline
    memoryMb: limits.memoryMb,
    stdoutBytes: limits.stdoutBytes,
    resultBytes: limits.resultBytes,
  };
}

/** Run one validated batch. Rejects only with SandboxCrash (the executor broke), carrying partial results. */
export async function runBatchOn(x: ExecutorProcess, req: RunBatchInput, limits: Limits, onCall?: (p: BatchProgress) => void): Promise<BatchOutput> {
  const n = req.calls.length;
  const lim = jobLimits(limits);
  const coverage = req.coverage ?? false;
  const audit = req.audit ?? false;
  const childLimits = { recursionLimit: limits.recursionLimit, resultBytes: limits.resultBytes };
  // Everything but the call's arguments is the same for every job of the batch: serialise it once.
  const common = JSON.stringify({ kind: 'call', source: req.source, entry: req.entry, coverage, audit, limits: childLimits });
  const head = `${common.slice(0, -1)},"call":`;
  const results: (CallResult | undefined)[] = new Array<CallResult | undefined>(n).fill(undefined);
  const events: string[][] = Array.from({ length: n }, () => []);
  const executed = new Map<string, [number, number]>();
  let sourceError: ErrorInfo | null = null;
  // Every call has its own deadline in the executor; this is the backstop for a stuck executor.
  const budgetMs = n * (limits.timeoutMs + 1000) + Math.max(limits.timeoutMs, ANALYSIS_TIMEOUT_MS) + 10_000;
  const budget = setTimeout(() => x.fail(new SandboxCrash(`the sandbox executor overran its batch budget (${budgetMs} ms)`)), budgetMs);
  try {
    const queued: Promise<JobOutcome>[] = [];
    let sent = 0;
    const outcome = async (p: Promise<JobOutcome>): Promise<JobOutcome> => {
      try {
        return await p;
      } catch (e) {
        throw new SandboxCrash((e as Error).message, results);
      }
    };
    const sendMessage = () => {
      const jobs: string[] = [];
      let bytes = 0;
      while (sent + jobs.length < n && jobs.length < CHUNK_CALLS && bytes < CHUNK_BYTES) {
        const job = `${head}${JSON.stringify(req.calls[sent + jobs.length])}}`;
        jobs.push(job);
        bytes += job.length;
      }
      for (const p of x.runJobs(jobs, lim)) {
        p.catch(() => undefined); // a crash rejects every queued job; the one awaited reports it
        queued.push(p);
      }
      sent += jobs.length;
    };
    for (let i = 0; i < n; i++) {
      if (!sourceError && sent < n && sent <= i + CHUNK_CALLS / 2) sendMessage();
      const o = i < sent ? await outcome(queued[i]!) : undefined;
      if (sourceError || !o) {
        // The source does not compile: the calls after the first all carry its error (the jobs already
        // queued ran and are drained, so the executor stays in step; the rest are never sent).
        results[i] = err(sourceError!.type, sourceError!.message, 0);
      } else {
        const c = callOutcome(o, lim);
        if (c.sourceError && !c.result.ok) sourceError = c.result.error;
        results[i] = c.result;
        addArcs(executed, c.arcs);
        if (audit) events[i] = auditEvents(c.events);
      }
      onCall?.({ index: i, result: results[i]!, ...(audit ? { events: events[i] } : {}) });
    }
    const done: BatchDone = { coverage: null, sourceError };
    if ((coverage || audit) && !sourceError) {
      const arcs = [...executed.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      const job = JSON.stringify({ kind: 'analyze', source: req.source, coverage, audit, arcs, limits: childLimits });
      const alim = { ...lim, timeoutMs: Math.max(lim.timeoutMs, ANALYSIS_TIMEOUT_MS), resultBytes: ANALYSIS_RESULT_BYTES };
      const o = await outcome(x.runJob(job, alim));
      const failed = limitError(o, alim, '');
      let analysis: { coverage?: Coverage; coverageError?: string; staticFlags?: string[] } = {};
      let problem = failed && !failed.ok ? `${failed.error.type}: ${failed.error.message}` : undefined;
      if (!failed) {
        let raw: unknown;
        try {
          raw = JSON.parse(o.result.toString('utf8'));
        } catch {
          raw = undefined;
        }
        const asError = childCallResultSchema.safeParse(raw);
        const asAnalysis = childAnalysisSchema.safeParse(raw);
        if (asError.success && !asError.data.ok) problem = `${asError.data.error.type}: ${asError.data.error.message}`;
        else if (asAnalysis.success) analysis = asAnalysis.data;
        else problem = 'unreadable analysis result';
      }
      if (coverage) {
        done.coverage = analysis.coverage ?? null;
        if (!analysis.coverage) done.coverageError = analysis.coverageError ?? `analysis failed: ${problem ?? 'no coverage'}`;
      }
      if (audit) done.staticFlags = analysis.staticFlags ?? [];
    } else if (audit) {
      done.staticFlags = ['unparsable'];
    }
    return { results: results as CallResult[], events, done };
  } finally {
    clearTimeout(budget);
  }
}
