// A SandboxError result is the sandbox failing (not the method): those calls run again, twice at most, so
// a transient fault does not become something an agent observed. Shared by the episode's sandbox batch
// (a workflow, through activities) and the model turn that runs its calls itself (placement `inline`).
import type { CallResult } from './schemas';
import { isSandboxFault } from './errorTypes';

export async function redoSandboxErrors(run: (calls: string[]) => Promise<CallResult[]>, calls: string[]): Promise<CallResult[]> {
  if (calls.length === 0) return [];
  const results = await run(calls);
  for (let attempt = 0; attempt < 2; attempt++) {
    const again = results.flatMap((r, i) => (!r.ok && isSandboxFault(r.error.type) ? [i] : []));
    if (again.length === 0) break;
    const redo = await run(again.map((i) => calls[i]!));
    again.forEach((i, j) => {
      results[i] = redo[j]!;
    });
  }
  return results;
}
