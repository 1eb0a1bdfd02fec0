// The workers inside `npm start` log to a file and say a failure in one console line (workers/workerLog.ts).
import { describe, expect, it } from 'vitest';
import { workerLogConsoleLine, workerLogFileText, type WorkerLogEntry } from '../../workers/workerLog';

class APIUserAbortError extends Error {
  override name = 'APIUserAbortError';
}

const failed: WorkerLogEntry = {
  level: 'WARN',
  message: 'Activity failed',
  timestampNanos: 1_764_649_054_968_000_000n,
  meta: {
    sdkComponent: 'worker',
    taskQueue: 'pau',
    attempt: 1,
    taskToken: 'CiQwMWEy…',
    activityType: 'judgeDescription',
    workflowId: 'judge/local/qwen2.5-coder-1.5b/run-1/mbpp/534/mock-random/interactive/0',
    error: new APIUserAbortError('Request was aborted.'),
    durationMs: 600_777,
  },
};

describe('a worker log entry', () => {
  it('a failed activity is one console line: what, where, which attempt, after how long, the error, the file', () => {
    const line = workerLogConsoleLine(failed, '/state/logs/workers.log');
    expect(line).toBe(
      '[worker] warning: Activity failed (judgeDescription of judge/local/qwen2.5-coder-1.5b/run-1/mbpp/534/mock-random/interactive/0, attempt 1) ' +
        'after 600.8 s: APIUserAbortError: Request was aborted.; details: /state/logs/workers.log',
    );
    expect(line).not.toContain('\n');
    expect(line).not.toContain('taskToken');
  });

  it('the file keeps the whole entry: time, level, metadata and the stack', () => {
    const text = workerLogFileText(failed);
    expect(text.startsWith('2025-12-02T04:17:34.968Z WARN Activity failed {')).toBe(true);
    expect(text).toContain('"taskToken":"CiQwMWEy…"');
    expect(text).toContain('"durationMs":600777');
    expect(text).toContain('\n  APIUserAbortError: Request was aborted.\n    at ');
    expect(text.endsWith('\n')).toBe(true);
  });

  it('below WARN nothing reaches the console; an error without meta still reads', () => {
    expect(workerLogConsoleLine({ ...failed, level: 'INFO' }, 'f')).toBeUndefined();
    expect(workerLogConsoleLine({ level: 'ERROR', message: 'Worker failed', timestampNanos: 0n, meta: { error: 'boom' } }, 'f')).toBe(
      '[worker] error: Worker failed: boom; details: f',
    );
    expect(workerLogFileText({ level: 'INFO', message: 'Worker state changed', timestampNanos: 0n })).toBe(
      '1970-01-01T00:00:00.000Z INFO Worker state changed\n',
    );
  });
});
