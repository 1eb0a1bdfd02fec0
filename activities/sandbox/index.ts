import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { SandboxBadRequest, type SandboxPool, SandboxUnavailable, sharedSandboxPool } from '../../platform/sandbox/pool';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import { runBatchInputSchema, type BatchResult } from '../../domain/sandbox/schemas';
import { currentActivity } from '../common/workflowContext';

export * from '../../domain/sandbox/schemas';
export { SandboxPool, SandboxBadRequest, SandboxUnavailable, sharedSandboxPool, closeSharedSandboxPool, defaultLimits } from '../../platform/sandbox/pool';
export type { SandboxPoolOptions, RunOptions } from '../../platform/sandbox/pool';
export { SandboxCrash } from '../../platform/sandbox/executorProcess';
export { checkDeterminism } from '../../platform/sandbox/determinism';
export { mergeCoverage, coverageRatios } from '../../domain/sandbox/coverage';

export const runMethodBatchInputSchema = runBatchInputSchema.extend({
  /** Return per-call SyntaxErrors instead of failing when the source does not compile (code match). */
  allowSourceError: z.boolean().optional(),
});
export type RunMethodBatchInput = z.infer<typeof runMethodBatchInputSchema>;

function badRequest(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: FAILURE_TYPES.sandboxBadRequest, message, nonRetryable: true });
}

function toFailure(err: unknown): unknown {
  if (err instanceof SandboxBadRequest) return badRequest(err.message);
  if (err instanceof SandboxUnavailable) {
    return ApplicationFailure.create({ type: FAILURE_TYPES.sandboxUnavailable, message: err.message, nonRetryable: false });
  }
  return err;
}

export interface SandboxActivitiesOptions {
  /** The pool to run on (default: the process-wide shared pool). */
  pool?: SandboxPool;
}

export function createSandboxActivities(opts: SandboxActivitiesOptions = {}) {
  const pool = () => opts.pool ?? sharedSandboxPool();

  /** Run one method on a batch of calls; per-call results, coverage when asked. */
  async function runMethodBatch(input: RunMethodBatchInput): Promise<BatchResult> {
    const parsed = runMethodBatchInputSchema.safeParse(input);
    if (!parsed.success) throw badRequest(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    const { allowSourceError, ...req } = parsed.data;
    // A local activity (the inline batch of a local model turn) cannot heartbeat. A batch beats after its
    // first second: a quick one sends none.
    const ctx = currentActivity();
    const beat = ctx && !ctx.info.isLocal ? ctx : undefined;
    let lastBeat = Date.now();
    const total = req.calls.length;
    let done = 0;
    const result = await pool()
      .runBatch(req, {
        onCall: () => {
          done++;
          const now = Date.now();
          if (beat && now - lastBeat > 1000) {
            lastBeat = now;
            beat.heartbeat({ done, total });
          }
        },
      })
      .catch((err: unknown) => {
        throw toFailure(err);
      });
    if (result.sourceError && !allowSourceError) {
      throw badRequest(`the method's source does not compile: ${result.sourceError.type}: ${result.sourceError.message}`);
    }
    return result;
  }

  return { runMethodBatch };
}

export type SandboxActivities = ReturnType<typeof createSandboxActivities>;
