// Several method calls in ONE sandbox activity on `pau-sandbox` (activities/sandbox: runMethodBatch).
// Coverage is not recorded here: the calls an episode observed are in `steps`, and coverage of them is
// recomputed in one batch when judging (deterministic methods), which keeps agent turns cheap.
import type { CallResult, SandboxLimits } from '../../domain/sandbox/schemas';
import { sandbox } from '../proxies/sandboxQueue';

export async function runSandboxBatch(source: string, entry: string, calls: string[], limits?: SandboxLimits): Promise<CallResult[]> {
  if (calls.length === 0) return [];
  const limitsArg = limits ? { limits } : {};
  const { results } = await sandbox.runMethodBatch({ source, entry, calls, ...limitsArg });
  // A SandboxError is the sandbox failing (not the method): run those calls again, twice at most, so a
  // transient fault does not become something the agent observed.
  for (let attempt = 0; attempt < 2; attempt++) {
    const again = results.flatMap((r, i) => (!r.ok && r.error.type === 'SandboxError' ? [i] : []));
    if (again.length === 0) break;
    const redo = (await sandbox.runMethodBatch({ source, entry, calls: again.map((i) => calls[i]!), ...limitsArg })).results;
    again.forEach((i, j) => {
      results[i] = redo[j]!;
    });
  }
  return results;
}
