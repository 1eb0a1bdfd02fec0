// One executor process (sandbox/executor.py, possibly inside bubblewrap): spawn, wait for READY, run jobs
// (one fresh child each) over the binary protocol of wire.ts, notice death. Jobs may be queued; the
// executor serves them in order. It knows nothing about batches, pooling or retries (batch.ts, pool.ts).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import type { Launch } from './isolation';
import type { CallResult } from '../../domain/sandbox/schemas';
import {
  FRAME,
  FrameReader,
  OP,
  encodeBatch,
  encodeRequest,
  endRecordSchema,
  errorRecordSchema,
  readyRecordSchema,
  type EndRecord,
  type JobLimits,
  type ReadyRecord,
} from './wire';

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

export interface BatchProgress {
  index: number;
  result: CallResult;
  events?: string[];
}

/** What one job produced: the executor's end record, and the child's stdout and result bytes. */
export interface JobOutcome {
  end: EndRecord;
  stdout: Buffer;
  result: Buffer;
}

interface Pending {
  seq: number;
  stdout: Buffer[];
  result: Buffer[];
  resolve: (o: JobOutcome) => void;
  reject: (e: Error) => void;
}

export class ExecutorProcess {
  private proc: ChildProcessWithoutNullStreams;
  /** Jobs sent and not finished, oldest first (the executor answers in this order). */
  private readonly queue: Pending[] = [];
  private seq = 0;
  private stderrTail = '';
  private exited = false;
  private killed = false;
  readonly ready: Promise<ReadyRecord>;

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
    let readyResolve: (r: ReadyRecord) => void = () => undefined;
    let readyReject: (e: Error) => void = () => undefined;
    this.ready = new Promise<ReadyRecord>((res, rej) => {
      readyResolve = res;
      readyReject = rej;
    });
    this.ready.catch(() => undefined); // observed by whoever awaits it
    const startTimer = setTimeout(() => {
      readyReject(new SandboxCrash(`the sandbox executor did not start within ${startTimeoutMs} ms`));
      this.kill();
    }, startTimeoutMs);
    const reader = new FrameReader((kind, seq, payload) => {
      try {
        this.onFrame(kind, seq, payload, (r) => {
          clearTimeout(startTimer);
          readyResolve(r);
        });
      } catch (err) {
        this.fail(new SandboxCrash(`unreadable executor output: ${(err as Error).message.slice(0, 200)}`));
      }
    });
    this.proc.stdout.on('data', (chunk: Buffer) => reader.push(chunk));
    this.proc.on('exit', (code, signal) => {
      this.exited = true;
      clearTimeout(startTimer);
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        const why = `the sandbox executor exited (${signal ?? `code ${code}`})${
          this.stderrTail ? `: ${this.stderrTail.trim().split('\n').slice(-3).join(' | ')}` : ''
        }`;
        readyReject(new SandboxCrash(why));
        this.fail(new SandboxCrash(why));
        if (this.launch.hostScratch) fs.rmSync(this.launch.hostScratch, { recursive: true, force: true });
      };
      // What it wrote before it exited (an ERROR saying why, the last results) is read first.
      if (this.proc.stdout.readableEnded) finish();
      else {
        const t = setTimeout(finish, 500);
        this.proc.stdout.once('end', () => {
          clearTimeout(t);
          finish();
        });
      }
    });
    this.proc.on('error', (err) => {
      readyReject(new SandboxCrash(`cannot start the sandbox executor: ${err.message}`));
    });
  }

  private onFrame(kind: number, seq: number, payload: Buffer, onReady: (r: ReadyRecord) => void): void {
    if (kind === FRAME.ready) {
      onReady(readyRecordSchema.parse(JSON.parse(payload.toString('utf8'))));
      return;
    }
    if (kind === FRAME.error) {
      throw new Error(`the executor rejected a request: ${errorRecordSchema.parse(JSON.parse(payload.toString('utf8'))).message}`);
    }
    const p = this.queue[0];
    if (!p || p.seq !== seq) throw new Error(`a frame for job ${seq}, expected ${p ? p.seq : 'none'}`);
    if (kind === FRAME.stdout) p.stdout.push(payload);
    else if (kind === FRAME.result) p.result.push(payload);
    else if (kind === FRAME.end) {
      const end = endRecordSchema.parse(JSON.parse(payload.toString('utf8')));
      this.queue.shift();
      p.resolve({ end, stdout: Buffer.concat(p.stdout), result: Buffer.concat(p.result) });
    } else throw new Error(`unknown frame kind ${kind}`);
  }

  get alive(): boolean {
    return !this.exited && !this.killed;
  }

  /** Jobs sent and not answered yet. */
  get pending(): number {
    return this.queue.length;
  }

  /** Fail every queued job and kill the process (it can no longer be trusted to be in step). */
  fail(err: SandboxCrash): void {
    for (const p of this.queue.splice(0)) p.reject(err);
    this.kill();
  }

  /** Queue one job: `payload` is the child's job (JSON text), `lim` what the executor enforces. */
  runJob(payload: string, lim: JobLimits): Promise<JobOutcome> {
    if (!this.alive) return Promise.reject(new SandboxCrash('the sandbox executor is not running'));
    this.seq = (this.seq + 1) >>> 0;
    const seq = this.seq;
    return new Promise<JobOutcome>((resolve, reject) => {
      this.queue.push({ seq, stdout: [], result: [], resolve, reject });
      this.proc.stdin.write(encodeRequest(OP.job, seq, payload, lim));
    });
  }

  /**
   * Queue many jobs as one BATCH message (each still a fresh child under `lim`); one outcome per job, in
   * order, each settling as the executor streams its end. Throws (nothing sent) for a bad request.
   */
  runJobs(payloads: string[], lim: JobLimits): Promise<JobOutcome>[] {
    if (!this.alive) return payloads.map(() => Promise.reject(new SandboxCrash('the sandbox executor is not running')));
    const first = (this.seq + 1) >>> 0;
    const message = encodeBatch({ seq: first, jobs: payloads, limits: lim });
    this.seq = (this.seq + payloads.length) >>> 0;
    const outcomes = payloads.map(
      (_p, i) =>
        new Promise<JobOutcome>((resolve, reject) => {
          this.queue.push({ seq: (first + i) >>> 0, stdout: [], result: [], resolve, reject });
        }),
    );
    this.proc.stdin.write(message);
    return outcomes;
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
      this.proc.stdin.end(encodeRequest(OP.exit, 0, ''));
    } catch {
      // already gone
    }
    const t = setTimeout(() => this.kill(), graceMs);
    await exited;
    clearTimeout(t);
  }
}
