// A pool of executor processes: picks the isolation mode once (loudly when it is weaker than the
// strongest), hands out one batch per executor at a time, respawns crashed executors, and retries a
// batch once on a fresh executor before answering the unanswered calls with SandboxError.
// Usable without Temporal: the CLI, the benchmark and other activities call runBatch() directly.
import os from 'node:os';
import { env } from '../../config/env';
import { runBatchOn } from './batch';
import { ExecutorProcess, SandboxCrash, type BatchProgress } from './executorProcess';
import { buildLaunch, bwrapAvailable, type Launch, type LaunchKind, type RequestedMode } from './isolation';
import { runBatchInputSchema, type BatchResult, type CallResult, type Limits, type RunBatchInput, type SandboxMode } from '../../domain/sandbox/schemas';
import { SANDBOX_ERROR } from '../../domain/sandbox/errorTypes';

export interface SandboxPoolOptions {
  mode?: RequestedMode;
  /** Executor processes (each runs one batch at a time). Default: PAU_SANDBOX_WORKERS or min(2, CPUs). */
  size?: number;
  /**
   * Call children each executor keeps forked and fully configured, waiting for one job each (0-8, default
   * 1). One is enough for calls with pauses between them (an agent's model turn): the replacement is
   * forked once the executor is idle. More absorb bursts; each holds a few MB of copied pages. 0 forks
   * every call's child on the call's clock (the fork-per-call baseline of bench:sandbox).
   */
  spares?: number;
  python?: string;
  bwrap?: string;
  /** Default limits for calls that do not set their own. */
  limits?: Partial<Limits>;
  /** PYTHONHASHSEED of the executors (fixed, so set iteration order is reproducible). */
  hashSeed?: number;
  /** Where the fallback warning goes (stderr by default). */
  warn?: (message: string) => void;
  /** The Python side's directory (default sandbox/): bench:sandbox compares another version of it. */
  sandboxDir?: string;
}

export interface RunOptions {
  /** Called as each call's result arrives (for heartbeats and progress bars). */
  onCall?: (p: BatchProgress) => void;
}

/** Bad input (not the sandbox's fault): not retryable. */
export class SandboxBadRequest extends Error {
  override name = 'SandboxBadRequest';
}

/** The requested isolation mode cannot run here, or no executor can start at all. */
export class SandboxUnavailable extends Error {
  override name = 'SandboxUnavailable';
}

/** Executor processes of a pool: PAU_SANDBOX_WORKERS, else min(2, CPUs). */
export function defaultPoolSize(): number {
  return env().PAU_SANDBOX_WORKERS ?? Math.max(1, Math.min(2, os.cpus().length));
}

export function defaultLimits(): Limits {
  const e = env();
  return {
    timeoutMs: e.PAU_SANDBOX_TIMEOUT_MS,
    memoryMb: e.PAU_SANDBOX_MEMORY_MB,
    stdoutBytes: e.PAU_SANDBOX_STDOUT_BYTES,
    recursionLimit: e.PAU_SANDBOX_RECURSION_LIMIT,
    resultBytes: e.PAU_SANDBOX_RESULT_BYTES,
  };
}

interface Waiter {
  resolve: (x: ExecutorProcess) => void;
  reject: (e: Error) => void;
}

export class SandboxPool {
  private readonly opts: Required<Omit<SandboxPoolOptions, 'limits' | 'warn' | 'sandboxDir'>> & { warn: (m: string) => void; sandboxDir?: string };
  private readonly limits: Limits;
  private readonly idle: ExecutorProcess[] = [];
  private readonly all = new Set<ExecutorProcess>();
  private readonly waiters: Waiter[] = [];
  private starting = 0;
  private launchKind: Promise<{ kind: LaunchKind; mode: SandboxMode }> | undefined;
  private closed = false;

  constructor(options: SandboxPoolOptions = {}) {
    const e = env();
    this.opts = {
      mode: options.mode ?? e.PAU_SANDBOX_MODE,
      size: options.size ?? defaultPoolSize(),
      python: options.python ?? e.PAU_PYTHON,
      bwrap: options.bwrap ?? e.PAU_SANDBOX_BWRAP,
      hashSeed: options.hashSeed ?? 0,
      spares: Math.max(0, Math.min(8, Math.floor(options.spares ?? 1))),
      warn: options.warn ?? ((m) => process.stderr.write(`${m}\n`)),
      ...(options.sandboxDir === undefined ? {} : { sandboxDir: options.sandboxDir }),
    };
    this.limits = { ...defaultLimits(), ...options.limits };
  }

  /** The isolation mode this pool runs in (starts an executor to find out). */
  async mode(): Promise<SandboxMode> {
    return (await this.resolveMode()).mode;
  }

  private resolveMode(): Promise<{ kind: LaunchKind; mode: SandboxMode }> {
    this.launchKind ??= this.pickMode();
    return this.launchKind;
  }

  /** Try the strongest mode first; say loudly when we end up weaker. Explicit modes never degrade. */
  private async pickMode(): Promise<{ kind: LaunchKind; mode: SandboxMode }> {
    const requested = this.opts.mode;
    const candidates: LaunchKind[] = requested === 'auto' ? ['bwrap', 'seccomp', 'none'] : [requested];
    const failures: string[] = [];
    for (const kind of candidates) {
      if (kind === 'bwrap' && !bwrapAvailable(this.opts.bwrap)) {
        failures.push(`bwrap: ${this.opts.bwrap} not found (install the bubblewrap package)`);
        continue;
      }
      const probe = new ExecutorProcess(this.launch(kind));
      try {
        const ready = await probe.ready;
        let mode: SandboxMode = kind === 'bwrap' ? 'bwrap+seccomp' : kind;
        if (kind !== 'none' && !ready.seccomp.ok) {
          if (requested !== 'auto' || kind === 'seccomp') {
            failures.push(`${kind}: seccomp filter unavailable (${ready.seccomp.detail})`);
            await probe.close();
            continue;
          }
          mode = 'bwrap';
          failures.push(`seccomp: ${ready.seccomp.detail}`);
        }
        this.adopt(probe);
        if (mode !== 'bwrap+seccomp') {
          this.opts.warn(
            `pau-sandbox: WARNING: running untrusted code in the weaker sandbox mode '${mode}'` +
              (failures.length ? ` because ${failures.join('; ')}` : '') +
              '. See docs/sandbox.md for what this mode does not defend against.',
          );
        }
        return { kind, mode };
      } catch (err) {
        failures.push(`${kind}: ${(err as Error).message}`);
        probe.kill();
      }
    }
    throw new SandboxUnavailable(`the sandbox cannot run in mode '${requested}': ${failures.join('; ')}`);
  }

  private launch(kind: LaunchKind): Launch {
    return buildLaunch(kind, this.opts.python, this.opts.bwrap, this.opts.hashSeed, {
      spares: this.opts.spares,
      ...(this.opts.sandboxDir === undefined ? {} : { sandboxDir: this.opts.sandboxDir }),
    });
  }

  private adopt(x: ExecutorProcess): void {
    this.all.add(x);
    this.release(x);
  }

  private release(x: ExecutorProcess): void {
    if (this.closed || !x.alive) {
      this.all.delete(x);
      if (!this.closed) this.kick();
      return;
    }
    const w = this.waiters.shift();
    if (w) w.resolve(x);
    else this.idle.push(x);
  }

  /** Start executors for waiting batches, up to the pool size. */
  private kick(): void {
    while (this.waiters.length > this.starting && this.all.size + this.starting < this.opts.size) {
      this.starting++;
      void this.spawnOne().finally(() => {
        this.starting--;
      });
    }
  }

  private async spawnOne(): Promise<void> {
    const { kind } = await this.resolveMode();
    const x = new ExecutorProcess(this.launch(kind));
    try {
      await x.ready;
      this.adopt(x);
    } catch (err) {
      const w = this.waiters.shift();
      w?.reject(new SandboxUnavailable(`cannot start a sandbox executor: ${(err as Error).message}`));
    }
  }

  private async acquire(): Promise<ExecutorProcess> {
    if (this.closed) throw new SandboxUnavailable('the sandbox pool is closed');
    await this.resolveMode();
    for (;;) {
      // The executor idle longest: it has had the most time to fork and set up its next spare (a fork
      // costs ~0.5-1 ms here, off the call's clock only while the executor is idle).
      const x = this.idle.shift();
      if (!x) break;
      if (x.alive) return x;
      this.all.delete(x);
    }
    return new Promise<ExecutorProcess>((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      this.kick();
    });
  }

  /** Run one method on a batch of calls. Never rejects for anything the method does. */
  async runBatch(input: RunBatchInput, runOpts: RunOptions = {}): Promise<BatchResult> {
    const parsed = runBatchInputSchema.safeParse(input);
    if (!parsed.success) {
      throw new SandboxBadRequest(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    }
    const req = parsed.data;
    const limits: Limits = { ...this.limits, ...req.limits };
    const { mode } = await this.resolveMode();
    let lastCrash: SandboxCrash | undefined;
    let best: (CallResult | undefined)[] = [];
    for (let attempt = 0; attempt < 2; attempt++) {
      const x = await this.acquire();
      try {
        const { results, events, done } = await runBatchOn(x, req, limits, runOpts.onCall);
        this.release(x);
        return {
          mode,
          results,
          coverage: done.coverage ?? null,
          sourceError: done.sourceError ?? null,
          ...(done.coverageError ? { coverageError: done.coverageError } : {}),
          ...(done.staticFlags ? { staticFlags: done.staticFlags } : {}),
          ...(req.audit ? { events } : {}),
        };
      } catch (err) {
        x.kill();
        this.release(x);
        if (!(err instanceof SandboxCrash)) throw err;
        lastCrash = err;
        if (err.partial.filter(Boolean).length >= best.filter(Boolean).length) best = err.partial;
      }
    }
    // Twice broken: answer every call anyway, so one poisonous input cannot stall a whole pipeline.
    const message = `the sandbox failed twice: ${lastCrash?.message ?? 'unknown'}`;
    return {
      mode,
      results: req.calls.map((_c, i) => best[i] ?? { ok: false, error: { type: SANDBOX_ERROR.sandboxError, message }, stdout: '', ms: 0 }),
      coverage: null,
      sourceError: null,
      coverageError: message,
    };
  }

  /** Stop every executor (and their call children). Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.waiters.splice(0)) w.reject(new SandboxUnavailable('the sandbox pool is closed'));
    this.idle.length = 0;
    await Promise.all([...this.all].map((x) => x.close()));
    this.all.clear();
  }
}

let shared: SandboxPool | undefined;
/** The process-wide pool (activities, CLI); created on first use with settings from the environment. */
export function sharedSandboxPool(): SandboxPool {
  shared ??= new SandboxPool();
  return shared;
}

export async function closeSharedSandboxPool(): Promise<void> {
  const p = shared;
  shared = undefined;
  await p?.close();
}
