// `checkMethodsBatch` on `pau-sandbox`: the filters that RUN code, for a batch of method ids. It reads the
// methods from Postgres (the workflow passes ids only), runs each on all its known inputs in the sandbox,
// asks the sandbox's determinism check, decides with datasets/filters.ts and writes the verdict back to the
// same row (an update keyed by method id: a retried batch writes the same values). Heartbeats per method
// and stops between methods when cancelled.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Db } from '../../db/client';
import { BuildLimits } from '../../datasets/config';
import { runtimeVerdict, type RuntimeVerdict } from '../../datasets/filters';
import { methodsByIds, recordCheck, type MethodRow } from '../../datasets/store';
import { fromSandboxBatch, portLimits, type DatasetSandbox } from '../../domain/dataset/sandboxPort';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';

export interface CheckBatchInput {
  ids: string[];
  limits?: Partial<BuildLimits>;
}

export interface CheckBatchResult {
  checked: number;
  accepted: number;
  rejected: number;
}

export async function checkOneMethod(sandbox: DatasetSandbox, m: MethodRow, limits: BuildLimits): Promise<RuntimeVerdict> {
  const inputs = [...m.probeInputs, ...m.heldoutInputs];
  const req = { source: m.code, entry: m.entryPoint ?? '', calls: inputs, limits: portLimits(limits) };
  const first = fromSandboxBatch(await sandbox.runBatch(req));
  if (first.sourceError || first.calls.some((c) => c.limit || c.sandboxError))
    return runtimeVerdict(first.calls, null, first.sourceError ? { sourceError: first.sourceError } : {});
  if (sandbox.checkDeterminism) {
    const determinism = await sandbox.checkDeterminism(req);
    return runtimeVerdict(first.calls, null, { determinism });
  }
  const second = fromSandboxBatch(await sandbox.runBatch(req));
  return runtimeVerdict(first.calls, second.calls);
}

export function makeCheckMethodsBatch(deps: { db: () => Db; sandbox: () => DatasetSandbox }) {
  return async function checkMethodsBatch(input: CheckBatchInput): Promise<CheckBatchResult> {
    if (!Array.isArray(input?.ids)) throw ApplicationFailure.nonRetryable('checkMethodsBatch needs { ids: string[] }', FAILURE_TYPES.badDatasetInput);
    const limits = BuildLimits.parse(input.limits ?? {});
    const rows = await methodsByIds(deps.db(), input.ids);
    const out: CheckBatchResult = { checked: 0, accepted: 0, rejected: 0 };
    const ctx = activityContext();
    for (const m of rows) {
      if (ctx?.cancellationSignal.aborted) throw ctx.cancellationSignal.reason ?? new Error('cancelled');
      ctx?.heartbeat({ done: out.checked, of: rows.length, id: m.id });
      if (m.verdict !== 'pending') {
        // Already decided (a retry of this batch, or a static rejection): nothing to redo.
        out.checked++;
        if (m.verdict === 'accepted') out.accepted++;
        else out.rejected++;
        continue;
      }
      const v = await checkOneMethod(deps.sandbox(), m, limits);
      const dropped = new Set(v.droppedInputs);
      const nProbe = m.probeInputs.length;
      const keep = (i: number) => !v.accepted || !dropped.has(i);
      const probeIdx = m.probeInputs.map((_, i) => i).filter(keep);
      const heldIdx = m.heldoutInputs.map((_, i) => i + nProbe).filter(keep);
      const all = [...m.probeInputs, ...m.heldoutInputs];
      await recordCheck(deps.db(), {
        id: m.id,
        accepted: v.accepted,
        reasons: v.reasons,
        detail: v.detail,
        probeInputs: probeIdx.map((i) => all[i]!),
        heldoutInputs: heldIdx.map((i) => all[i]!),
        probeOutputs: probeIdx.map((i) => v.outcomes[i] ?? { ok: false }),
        heldoutOutputs: heldIdx.map((i) => v.outcomes[i] ?? { ok: false }),
      });
      out.checked++;
      if (v.accepted) out.accepted++;
      else out.rejected++;
    }
    return out;
  };
}

function activityContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined; // called outside an activity (tests)
  }
}
