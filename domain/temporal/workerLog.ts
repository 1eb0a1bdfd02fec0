// What a worker's SDK log entry becomes when the workers run inside `npm start`: the whole entry (meta and the
// error's stack) goes to a log file, and a warning or error gets one line on the console that says what failed,
// where, and on which attempt. Without this a judge call timing out under load printed ~30 lines of
// taskToken, stack and empty fields into the progress bars (seen in a first run, 2026-12-02).
import type { LogLevel, LogMetadata } from '@temporalio/common';

export interface WorkerLogEntry {
  level: LogLevel;
  message: string;
  meta?: LogMetadata;
  timestampNanos: bigint;
}

function errorOf(meta: LogMetadata | undefined): { head: string; stack?: string } | undefined {
  const e = meta?.error ?? meta?.failure;
  if (e === undefined || e === null) return undefined;
  if (e instanceof Error) {
    const cause = e.cause instanceof Error ? ` (cause: ${e.cause.name}: ${e.cause.message})` : '';
    return { head: `${e.name}: ${e.message}${cause}`, ...(e.stack ? { stack: e.stack } : {}) };
  }
  return { head: typeof e === 'string' ? e : JSON.stringify(e) };
}

function iso(nanos: bigint): string {
  return new Date(Number(nanos / 1_000_000n)).toISOString();
}

/** The log file's record of an entry: a header line with the metadata, then the error's stack, indented. */
export function workerLogFileText(entry: WorkerLogEntry): string {
  const { error: _e, failure: _f, ...rest } = entry.meta ?? {};
  const err = errorOf(entry.meta);
  const meta = Object.keys(rest).length > 0 ? ` ${JSON.stringify(rest, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}` : '';
  // The head names the error as it is (a stack's first line may say "Error" for a subclass that sets its name late).
  const frames = (err?.stack ?? '').split('\n').filter((l) => /^\s+at /.test(l));
  const stack = err ? `\n  ${[err.head, ...frames.map((f) => `  ${f.trim()}`)].join('\n  ')}` : '';
  return `${iso(entry.timestampNanos)} ${entry.level} ${entry.message}${meta}${stack}\n`;
}

/** The console's line for a warning or an error (undefined for the levels below). */
export function workerLogConsoleLine(entry: WorkerLogEntry, logFile: string): string | undefined {
  if (entry.level !== 'WARN' && entry.level !== 'ERROR') return undefined;
  const m = entry.meta ?? {};
  const what = [m.activityType, m.workflowType].find((v): v is string => typeof v === 'string');
  const where = typeof m.workflowId === 'string' ? ` of ${m.workflowId}` : '';
  const attempt = typeof m.attempt === 'number' ? `, attempt ${m.attempt}` : '';
  const after = typeof m.durationMs === 'number' ? ` after ${(m.durationMs / 1000).toFixed(1)} s` : '';
  const err = errorOf(m);
  return `[worker] ${entry.level === 'ERROR' ? 'error' : 'warning'}: ${entry.message}${what ? ` (${what}${where}${attempt})` : ''}${after}${err ? `: ${err.head}` : ''}; details: ${logFile}`;
}
