// Runs whose workflow Temporal no longer runs (terminated, timed out, cancelled, gone) but whose rows still
// say running: the run and its unfinished episodes are marked, so `runs list` never shows a run running
// that Temporal does not, and `rerun --run ID` can continue it. Called by `runs list|show`, `rerun`, `runs cancel`.
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { and, eq, inArray, lt, or } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { episodes, runs } from '../../db/schema/runs';
import { benchWorkflowId } from '../../domain/bench/workflowIds';
import { type ExecutionStatusName, reconcileRun } from '../../domain/ops/reconcile';

export interface Reconciled {
  runId: string;
  runStatus: string;
  reason: string;
  episodes: number;
}

/** A row the CLI has just inserted may not have its workflow yet: only rows older than this count as lost. */
const START_GRACE_MS = 60_000;

async function executionStatus(client: Client, workflowId: string): Promise<ExecutionStatusName | 'NOT_FOUND'> {
  try {
    return (await client.workflow.getHandle(workflowId).describe()).status.name as ExecutionStatusName;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return 'NOT_FOUND';
    throw err;
  }
}

export async function reconcileRuns(client: Client, db: Db, runIds?: string[]): Promise<Reconciled[]> {
  const open = await db
    .select({ id: runs.id, status: runs.status, workflowId: runs.workflowId, updatedAt: runs.updatedAt })
    .from(runs)
    .where(
      and(eq(runs.kind, 'benchmark'), inArray(runs.status, ['pending', 'running']), ...(runIds ? [inArray(runs.id, runIds.length > 0 ? runIds : [''])] : [])),
    );
  const out: Reconciled[] = [];
  for (const r of open) {
    const workflowId = benchWorkflowId(r.id);
    const status = await executionStatus(client, workflowId);
    if (status === 'NOT_FOUND' && Date.now() - r.updatedAt.getTime() < START_GRACE_MS) continue;
    const rec = reconcileRun(status, workflowId);
    if (!rec) continue;
    const now = new Date();
    const marked = await db
      .update(episodes)
      .set({ status: 'cancelled', error: rec.reason, waitingFor: null, waitingSince: null, waitError: null, finishedAt: now, updatedAt: now })
      .where(and(eq(episodes.runId, r.id), or(eq(episodes.status, 'running'), eq(episodes.status, 'pending'))))
      .returning({ id: episodes.id });
    // Only a row still open is changed (a workflow finishing right now records its own end).
    await db
      .update(runs)
      .set({ status: rec.runStatus, error: rec.reason, finishedAt: now, updatedAt: now })
      .where(and(eq(runs.id, r.id), inArray(runs.status, ['pending', 'running']), lt(runs.updatedAt, now)));
    out.push({ runId: r.id, runStatus: rec.runStatus, reason: rec.reason, episodes: marked.length });
  }
  return out;
}
