// The sandbox work a dataset build reports (domain/sandbox/work.ts) and the port wrapper that adds it up
// (domain/dataset/sandboxPort.ts `tallied`): calls, their time, and the part time limits took.
import { describe, expect, it } from 'vitest';
import { tallied, type DatasetSandbox } from '../../domain/dataset/sandboxPort';
import type { CallResult } from '../../domain/sandbox/schemas';
import { addWork, NO_WORK, workLine, workOf } from '../../domain/sandbox/work';

const ok = (ms: number): CallResult => ({ ok: true, value: 1, repr: '1', stdout: '', ms });
const raised = (type: string, ms: number): CallResult => ({ ok: false, error: { type, message: 'x' }, stdout: '', ms });

describe('workOf / addWork', () => {
  it('counts calls and time, and apart the calls a time limit stopped', () => {
    const w = workOf([ok(2), raised('Timeout', 1000), raised('ValueError', 3), raised('MemoryLimit', 40)]);
    expect(w).toEqual({ calls: 4, ms: 1045, timeouts: 1, timeoutMs: 1000 });
    // A method's own exception named like ours is not a limit (exact sandbox error types only).
    expect(workOf([raised('TimeoutError', 5)]).timeouts).toBe(0);
    expect(addWork(w, workOf([ok(5)]))).toEqual({ calls: 5, ms: 1050, timeouts: 1, timeoutMs: 1000 });
    expect(addWork(NO_WORK, NO_WORK)).toEqual(NO_WORK);
  });
  it('says it in one line', () => {
    expect(workLine({ calls: 84137, ms: 359_700, timeouts: 307, timeoutMs: 343_614 })).toBe(
      'sandbox calls: 84,137 (each in a fresh process), 360 s of run time; 307 stopped at their time limit: 344 s of it (96 %)',
    );
    expect(workLine({ calls: 3, ms: 4.2, timeouts: 0, timeoutMs: 0 })).toBe(
      'sandbox calls: 3 (each in a fresh process), 0.0 s of run time; none stopped at its time limit',
    );
    expect(workLine(NO_WORK)).toBe('sandbox calls: none (every verdict was already recorded)');
  });
});

describe('tallied', () => {
  it("adds up the batches run through it and the determinism check's own runs", async () => {
    const inner: DatasetSandbox = {
      runBatch: async (input) => ({ sourceError: null, results: input.calls.map((c) => (c === 'loop' ? raised('Timeout', 1000) : ok(1))) }),
      checkDeterminism: async (input) => ({
        deterministic: true,
        stateless: true,
        flags: [],
        work: { calls: 2 * input.calls.length, ms: 2, timeouts: 0, timeoutMs: 0 },
      }),
    };
    const { sandbox, total } = tallied(inner);
    expect(total()).toEqual(NO_WORK);
    const r = await sandbox.runBatch({ source: 's', entry: 'f', calls: ['1', 'loop'] });
    expect(r.results).toHaveLength(2); // passed through unchanged
    await sandbox.checkDeterminism?.({ source: 's', entry: 'f', calls: ['1', 'loop'] });
    expect(total()).toEqual({ calls: 6, ms: 1003, timeouts: 1, timeoutMs: 1000 });
  });
  it('offers no determinism check when the sandbox has none (the build then runs the batch twice)', () => {
    expect(tallied({ runBatch: async () => ({ sourceError: null, results: [] }) }).sandbox.checkDeterminism).toBeUndefined();
  });
});
