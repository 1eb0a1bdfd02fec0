// Several method calls in ONE sandbox activity on `pau-sandbox` (activities/sandbox: runMethodBatch).
// Coverage is not recorded here: the calls an episode observed are in `steps`, and coverage of them is
// recomputed in one batch when judging (deterministic methods), which keeps agent turns cheap.
import type { CallOutcome, PendingCall } from '../../domain/episode/types';
import { redoSandboxErrors } from '../../domain/sandbox/redoSandboxErrors';
import type { CallResult, SandboxLimits } from '../../domain/sandbox/schemas';
import { sandbox } from '../proxies/sandboxQueue';

export async function runSandboxBatch(source: string, entry: string, calls: string[], limits?: SandboxLimits): Promise<CallResult[]> {
  const limitsArg = limits ? { limits } : {};
  return redoSandboxErrors(async (batch) => (await sandbox.runMethodBatch({ source, entry, calls: batch, ...limitsArg })).results, calls);
}

/** One step's calls by the agent, run in one batch: their outcomes at the steps reserved for them. */
export async function runStepCalls(source: string, entry: string, calls: PendingCall[], limits?: SandboxLimits): Promise<CallOutcome[]> {
  const results = await runSandboxBatch(
    source,
    entry,
    calls.map((c) => c.arguments),
    limits,
  );
  return calls.map((c, i) => ({ stepIdx: c.stepIdx, toolCallId: c.toolCallId, arguments: c.arguments, result: results[i]! }));
}
