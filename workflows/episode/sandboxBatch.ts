// Several method calls in ONE sandbox activity on `pau-sandbox` (activities/sandbox: runMethodBatch).
// Coverage is not recorded here: the calls an episode observed are in `steps`, and coverage of them is
// recomputed in one batch when judging (deterministic methods), which keeps agent turns cheap.
import { redoSandboxErrors } from '../../domain/sandbox/redoSandboxErrors';
import type { CallResult, SandboxLimits } from '../../domain/sandbox/schemas';
import { sandbox } from '../proxies/sandboxQueue';

export async function runSandboxBatch(source: string, entry: string, calls: string[], limits?: SandboxLimits): Promise<CallResult[]> {
  const limitsArg = limits ? { limits } : {};
  return redoSandboxErrors(async (batch) => (await sandbox.runMethodBatch({ source, entry, calls: batch, ...limitsArg })).results, calls);
}
