// Placement `inline`: the model turn runs the previous turn's calls itself, on this worker's sandbox pool
// (the one `pau-sandbox` workers use), instead of a `runMethodBatch` activity of its own on `pau-sandbox`.
// One activity per step instead of two, and no wait for a sandbox task slot. The calls are deterministic
// and write nothing, so a retried turn simply runs them again; their outcomes are persisted before the
// model is asked, as with queued batches.
import { redoSandboxErrors } from '../../domain/sandbox/redoSandboxErrors';
import type { CallOutcome, PendingBatch } from '../../domain/episode/types';
import { createSandboxActivities } from '../sandbox/index';

let sandbox: ReturnType<typeof createSandboxActivities> | undefined;

export async function runPendingCalls(batch: PendingBatch): Promise<CallOutcome[]> {
  sandbox ??= createSandboxActivities();
  const limits = batch.limits ? { limits: batch.limits } : {};
  const results = await redoSandboxErrors(
    async (calls) => (await sandbox!.runMethodBatch({ source: batch.code, entry: batch.entryPoint, calls, ...limits })).results,
    batch.calls.map((c) => c.arguments),
  );
  return batch.calls.map((c, i) => ({ stepIdx: c.stepIdx, toolCallId: c.toolCallId, arguments: c.arguments, result: results[i]! }));
}
