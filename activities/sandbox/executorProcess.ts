// One executor process (sandbox/executor.py, possibly inside bubblewrap): spawn, wait for `ready`, run
// one batch at a time over JSON lines, notice death. It knows nothing about pooling or retries.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import { createInterface } from 'node:readline';
import type { Launch } from './isolation';
import { executorMessageSchema, type CallResult, type DoneMessage, type ExecutorMessage, type Limits, type RunBatchInput } from '../../domain/sandbox/schemas';

/** The executor died or stopped answering: retryable (a fresh executor may well succeed). */
export class SandboxCrash extends Error {
  override name = 'SandboxCrash';
  constructor(
    message: string,
    /** Results that arrived before the crash, by call index. */
    public readonly partial: (CallResult | undefined)[] = [],
  ) {
    super(message);
  }
}

export interface ReadyInfo {
  pid: number;
  python: string;
  seccomp: { ok: boolean; detail: string };
}

export interface BatchProgress {
  index: number;
  result: CallResult;
  events?: string[];
}

interface Pending {
  id: string;
  results: (CallResult | undefined)[];
  events: (string[] | undefined)[];
  onCall?: (p: BatchProgress) => void;
  resolve: (v: { results: CallResult[]; events: string[][]; done: DoneMessage }) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

let nextId = 0;

export class ExecutorProcess {
  private proc: ChildProcessWithoutNullStreams;
  private pending: Pending | undefined;
  private stderrTail = '';
  private exited = false;
  private killed = false;
  readonly ready: Promise<ReadyInfo>;

  constructor(
    private readonly launch: Launch,
    startTimeoutMs = 30_000,
  ) {
    this.proc = spawn(launch.command, launch.args, { env: launch.env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.proc.stdin.on('error', () => undefined); // EPIPE after death is reported through 'exit'
    this.proc.stderr.setEncoding('utf8');
    this.proc.stderr.on('data', (d: string) => {
      this.stderrTail = (this.stderrTail + d).slice(-4000);
    });
    let readyResolve: (r: ReadyInfo) => void = () => undefined;
    let readyReject: (e: Error) => void = () => undefined;
    this.ready = new Promise<ReadyInfo>((res, rej) => {
      readyResolve = res;
      readyReject = rej;
    });
    this.ready.catch(() => undefined); // observed by whoever awaits it
    const startTimer = setTimeout(() => {
      readyReject(new SandboxCrash(`the sandbox executor did not start within ${startTimeoutMs} ms`));
      this.kill();
    }, startTimeoutMs);
    const lines = createInterface({ input: this.proc.stdout, crlfDelay: Infinity });
    lines.on('line', (line) => {
      if (!line.trim()) return;
      let msg: ExecutorMessage;
      try {
        msg = executorMessageSchema.parse(JSON.parse(line));
      } catch (err) {
        this.fail(new SandboxCrash(`unreadable executor output: ${(err as Error).message.slice(0, 200)}`));
        return;
      }
      if (msg.type === 'ready') {
        clearTimeout(startTimer);
        readyResolve({ pid: msg.pid, python: msg.python, seccomp: msg.seccomp });
      } else if (msg.type === 'call') {
        const p = this.pending;
        if (!p || msg.id !== p.id) return;
        p.results[msg.index] = msg.result;
        p.events[msg.index] = msg.events;
        p.onCall?.({ index: msg.index, result: msg.result, events: msg.events });
      } else if (msg.type === 'done') {
        const p = this.pending;
        if (!p || msg.id !== p.id) return;
        this.pending = undefined;
        clearTimeout(p.timer);
        if (msg.error) {
          p.reject(new SandboxCrash(`${msg.error.type}: ${msg.error.message}`, p.results));
          return;
        }
        const missing = p.results.findIndex((r) => r === undefined);
        if (missing >= 0) {
          p.reject(new SandboxCrash(`the executor finished without a result for call ${missing}`, p.results));
          return;
        }
        p.resolve({ results: p.results as CallResult[], events: p.events.map((e) => e ?? []), done: msg });
      }
    });
    this.proc.on('exit', (code, signal) => {
      this.exited = true;
      clearTimeout(startTimer);
      const why = `the sandbox executor exited (${signal ?? `code ${code}`})${
        this.stderrTail ? `: ${this.stderrTail.trim().split('\n').slice(-3).join(' | ')}` : ''
      }`;
      readyReject(new SandboxCrash(why));
      this.fail(new SandboxCrash(why));
      if (this.launch.hostScratch) fs.rmSync(this.launch.hostScratch, { recursive: true, force: true });
    });
    this.proc.on('error', (err) => {
      readyReject(new SandboxCrash(`cannot start the sandbox executor: ${err.message}`));
    });
  }

  get alive(): boolean {
    return !this.exited && !this.killed;
  }

  get busy(): boolean {
    return this.pending !== undefined;
  }

  private fail(err: SandboxCrash): void {
    const p = this.pending;
    if (!p) return;
    this.pending = undefined;
    clearTimeout(p.timer);
    p.reject(new SandboxCrash(err.message, p.results));
    this.kill();
  }

  /** Run one batch. Rejects with SandboxCrash if the executor dies or overruns its budget. */
  run(input: RunBatchInput, limits: Limits, onCall?: (p: BatchProgress) => void): Promise<{ results: CallResult[]; events: string[][]; done: DoneMessage }> {
    if (this.pending) throw new Error('executor busy');
    if (this.exited) return Promise.reject(new SandboxCrash('the sandbox executor is not running'));
    const id = `b${++nextId}`;
    // Every call has its own deadline inside; this is the backstop for a stuck executor.
    const budgetMs = input.calls.length * (limits.timeoutMs + 1000) + Math.max(limits.timeoutMs, 10_000) + 10_000;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.fail(new SandboxCrash(`the sandbox executor overran its batch budget (${budgetMs} ms)`));
      }, budgetMs);
      this.pending = {
        id,
        results: new Array<CallResult | undefined>(input.calls.length).fill(undefined),
        events: new Array<string[] | undefined>(input.calls.length).fill(undefined),
        onCall,
        resolve,
        reject,
        timer,
      };
      const req = {
        op: 'run',
        id,
        source: input.source,
        entry: input.entry,
        calls: input.calls,
        coverage: input.coverage ?? false,
        audit: input.audit ?? false,
        limits,
      };
      this.proc.stdin.write(`${JSON.stringify(req)}\n`);
    });
  }

  kill(): void {
    this.killed = true;
    if (!this.exited) this.proc.kill('SIGKILL');
  }

  /** Ask it to exit; SIGKILL after a grace period. */
  async close(graceMs = 2000): Promise<void> {
    if (this.exited) return;
    const exited = new Promise<void>((res) => this.proc.once('exit', () => res()));
    try {
      this.proc.stdin.end(`${JSON.stringify({ op: 'exit' })}\n`);
    } catch {
      // already gone
    }
    const t = setTimeout(() => this.kill(), graceMs);
    await exited;
    clearTimeout(t);
  }
}
