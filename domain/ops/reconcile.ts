// What a run's row should say when Temporal says its workflow is no longer running. Pure: the CLI asks
// Temporal, this decides, Postgres is updated with the result.

/** Temporal's execution status names (WorkflowExecutionStatusName in @temporalio/client). */
export type ExecutionStatusName = 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'TERMINATED' | 'CONTINUED_AS_NEW' | 'TIMED_OUT' | 'UNKNOWN' | 'PAUSED';

export interface Reconciliation {
  /** The run's new status. */
  runStatus: 'cancelled' | 'failed';
  /** The error stored on the run and on each episode row left running. */
  reason: string;
}

/**
 * `undefined` when the row may stay as it is (the workflow runs, continued as new, or finished and
 * recorded its own end). A workflow that is gone (`NOT_FOUND`, e.g. its history expired) is treated as
 * terminated.
 */
export function reconcileRun(status: ExecutionStatusName | 'NOT_FOUND', workflowId: string): Reconciliation | undefined {
  switch (status) {
    case 'TERMINATED':
      return { runStatus: 'cancelled', reason: `workflow ${workflowId} was terminated` };
    case 'CANCELLED':
      return { runStatus: 'cancelled', reason: `workflow ${workflowId} was cancelled` };
    case 'TIMED_OUT':
      return { runStatus: 'failed', reason: `workflow ${workflowId} timed out` };
    case 'FAILED':
      return { runStatus: 'failed', reason: `workflow ${workflowId} failed` };
    case 'NOT_FOUND':
      return { runStatus: 'cancelled', reason: `workflow ${workflowId} does not exist in Temporal` };
    default:
      return undefined;
  }
}
