// Several method calls in ONE sandbox activity on `pau-sandbox` (activities/sandbox: runMethodBatch).
// Coverage is not recorded here: the calls an episode observed are in `steps`, and coverage of them is
// recomputed in one batch when judging (deterministic methods), which keeps agent turns cheap.
import type { SandboxCallResult, SandboxLimits } from '../../domain/episode/types';
import { sandbox } from '../proxies/sandboxQueue';

export async function runSandboxBatch(source: string, entry: string, calls: string[], limits?: SandboxLimits): Promise<SandboxCallResult[]> {
  if (calls.length === 0) return [];
  const { timeoutMs, ...rest } = limits ?? {};
  const limitsArg = limits ? { limits: { ...(timeoutMs !== undefined ? { timeoutMs } : {}), ...(rest as object) } } : {};
  const results = (await sandbox.runMethodBatch({ source, entry, calls, ...limitsArg })).results as SandboxCallResult[];
  // A SandboxError is the sandbox failing (not the method): run those calls again, twice at most, so a
  // transient fault does not become something the agent observed.
  for (let attempt = 0; attempt < 2; attempt++) {
    const again = results.flatMap((r, i) => (!r.ok && r.error.type === 'SandboxError' ? [i] : []));
    if (again.length === 0) break;
    const redo = (await sandbox.runMethodBatch({ source, entry, calls: again.map((i) => calls[i]!), ...limitsArg })).results as SandboxCallResult[];
    again.forEach((i, j) => (results[i] = redo[j]!));
  }
  return results;
}
