// Runs one trainer job as a child process: `python -m pau_trainer <command> --spec FILE --watch-stdin`,
// in the trainer's own virtualenv (trainer/setup.sh creates it on first use). Reads the JSON lines the
// trainer prints (each validated against the wire contract), forwards them, and turns an AbortSignal into
// SIGTERM (the trainer finishes its step, saves, and exits 5). The trainer is our direct child (the venv's
// python, no shell or launcher in between) and dies with us (trainer/pau_trainer/parent_watch.py:
// PR_SET_PDEATHSIG on Linux, plus a watchdog on its parent pid and on our end of its stdin, which we keep
// open while we live), so a SIGKILLed worker leaves no orphan holding the job directory's lock.
// With PAU_TRAINER_PROCESSES > 1 (or "auto" on a CUDA host) that child runs torchrun's agent in-process and
// its N ranks under it (trainer/pau_trainer/launch.py); it keeps this contract: rank 0's events on stdout, the
// job's exit code, SIGTERM forwarded to every rank, and no rank outlives it.
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { env } from '../../config/env';
import { parseGpuList } from '../../domain/training/gpuSplit';
import { trainerEventSchema, type TrainerCommand, type TrainerEvent } from '../../domain/training/trainerProtocol';

// The venv and its python live in platform/ (the CLI's `dataset export --format parquet` uses them too).
import { ensureTrainerPython, TRAINER_DIR } from '../../platform/process/trainerPython';

export { ensureTrainerPython, TRAINER_DIR };

export interface TrainerRunOptions {
  /** Called for every event, in order. */
  onEvent?: (e: TrainerEvent) => void;
  /** Abort = cancel: SIGTERM, then wait for the trainer to save and exit. */
  signal?: AbortSignal;
  /** After SIGTERM, SIGKILL if the trainer has not exited after this long (a step plus a save). */
  killAfterMs?: number;
  /** Extra environment (PAU_TRAINER_THREADS, PAU_CACHE_DIR, ...). */
  env?: NodeJS.ProcessEnv;
}

export interface TrainerRunResult {
  exitCode: number | null;
  /** Set when the process died of a signal (e.g. SIGKILL). */
  signal: NodeJS.Signals | null;
  events: TrainerEvent[];
  /** We sent SIGTERM because the AbortSignal fired. */
  cancelRequested: boolean;
  stderrTail: string;
}

/** The trainer's GPU set (PAU_TRAINER_GPUS) as its CUDA_VISIBLE_DEVICES; nothing when unset. */
export function trainerGpuEnv(raw: string | undefined = env().PAU_TRAINER_GPUS): NodeJS.ProcessEnv {
  return raw ? { CUDA_VISIBLE_DEVICES: parseGpuList(raw).join(',') } : {};
}

/** Run the trainer to completion (or cancellation, or death) and return what it reported. */
export async function runTrainerProcess(command: TrainerCommand, specFile: string, opts: TrainerRunOptions = {}): Promise<TrainerRunResult> {
  const py = await ensureTrainerPython();
  const child = spawn(py, ['-m', 'pau_trainer', command, '--spec', specFile, '--watch-stdin'], {
    cwd: TRAINER_DIR,
    stdio: ['pipe', 'pipe', 'pipe'],
    // the pid the trainer's watchdog compares getppid() with (closes the race with a parent that dies
    // before the trainer has set its death signal)
    env: { ...process.env, PYTHONUNBUFFERED: '1', ...trainerGpuEnv(), ...opts.env, PAU_TRAINER_PARENT_PID: String(process.pid) },
  });
  const events: TrainerEvent[] = [];
  let stderrTail = '';
  let cancelRequested = false;
  let killTimer: NodeJS.Timeout | undefined;
  child.stderr.on('data', (d: Buffer) => {
    stderrTail = (stderrTail + d.toString()).slice(-8000);
  });
  const onAbort = () => {
    if (cancelRequested || child.exitCode !== null) return;
    cancelRequested = true;
    child.kill('SIGTERM');
    killTimer = setTimeout(() => child.kill('SIGKILL'), opts.killAfterMs ?? 10 * 60_000);
  };
  if (opts.signal?.aborted) onAbort();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  const lines = readline.createInterface({ input: child.stdout });
  lines.on('line', (line) => {
    if (!line.trim()) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      stderrTail = (stderrTail + `\n[stdout, not JSON] ${line}`).slice(-8000);
      return;
    }
    const ev = trainerEventSchema.safeParse(parsed);
    if (!ev.success) {
      stderrTail = (stderrTail + `\n[stdout, not a trainer event] ${line.slice(0, 500)}`).slice(-8000);
      return;
    }
    events.push(ev.data);
    opts.onEvent?.(ev.data);
  });
  const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, sig) => resolve([code, sig]));
  });
  if (killTimer) clearTimeout(killTimer);
  opts.signal?.removeEventListener('abort', onAbort);
  return { exitCode, signal, events, cancelRequested, stderrTail };
}
