// "Rerun a failed workflow from just before its failure": find the first failure in the history and
// reset to the workflow task that scheduled the failed step. Everything that completed before that
// point is kept (replayed from history, not re-executed); the failed step and what follows run again.
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
// @temporalio/proto is CommonJS without named ESM exports: take the namespace from the default export.
import proto, { type temporal } from '@temporalio/proto';
import Long from 'long';

const E = proto.temporal.api.enums.v1.EventType;

export interface ResetPoint {
  /** The WorkflowTaskCompleted event the new run resumes after. */
  workflowTaskFinishEventId: number;
  failedEventId: number;
  failure: string;
}

function num(v: unknown): number {
  return v == null ? 0 : Number(v.toString());
}

/** The failing event and the id of the event that scheduled/started the failed step. */
function firstFailure(
  events: temporal.api.history.v1.IHistoryEvent[],
): { event: temporal.api.history.v1.IHistoryEvent; causeEventId: number; what: string } | undefined {
  for (const ev of events) {
    const id = num(ev.eventId);
    switch (ev.eventType) {
      case E.EVENT_TYPE_ACTIVITY_TASK_FAILED:
        return {
          event: ev,
          causeEventId: num(ev.activityTaskFailedEventAttributes?.scheduledEventId),
          what: `activity failed: ${ev.activityTaskFailedEventAttributes?.failure?.message ?? ''}`,
        };
      case E.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT:
        return { event: ev, causeEventId: num(ev.activityTaskTimedOutEventAttributes?.scheduledEventId), what: 'activity timed out' };
      case E.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_FAILED:
        return {
          event: ev,
          causeEventId: num(ev.childWorkflowExecutionFailedEventAttributes?.initiatedEventId),
          what: `child workflow failed: ${ev.childWorkflowExecutionFailedEventAttributes?.failure?.message ?? ''}`,
        };
      case E.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TIMED_OUT:
        return { event: ev, causeEventId: num(ev.childWorkflowExecutionTimedOutEventAttributes?.initiatedEventId), what: 'child workflow timed out' };
      case E.EVENT_TYPE_WORKFLOW_TASK_FAILED:
        // A reset marks the point it resumed from with a failed workflow task: that is not a failure.
        if (ev.workflowTaskFailedEventAttributes?.cause === proto.temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW)
          break;
        return { event: ev, causeEventId: id, what: `workflow task failed: ${ev.workflowTaskFailedEventAttributes?.failure?.message ?? ''}` };
      case E.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED:
      case E.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT:
        return { event: ev, causeEventId: id, what: 'workflow failed' };
      default:
        break;
    }
  }
  return undefined;
}

export function findResetPoint(events: temporal.api.history.v1.IHistoryEvent[]): ResetPoint | undefined {
  const failure = firstFailure(events);
  if (!failure) return undefined;
  let point = 0;
  for (const ev of events) {
    if (num(ev.eventId) >= failure.causeEventId) break;
    if (ev.eventType === E.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) point = num(ev.eventId);
  }
  if (point === 0) {
    // Failed in the first workflow task: the earliest valid reset point is the first completed task.
    const first = events.find((ev) => ev.eventType === E.EVENT_TYPE_WORKFLOW_TASK_COMPLETED);
    if (!first) return undefined;
    point = num(first.eventId);
  }
  return { workflowTaskFinishEventId: point, failedEventId: num(failure.event.eventId), failure: failure.what.trim() };
}

export interface ResetResult extends ResetPoint {
  workflowId: string;
  oldRunId: string;
  newRunId: string;
}

export async function resetToBeforeFailure(client: Client, workflowId: string, reason = 'pau rerun: reset to before the first failure'): Promise<ResetResult> {
  const handle = client.workflow.getHandle(workflowId);
  const description = await handle.describe();
  const history = await handle.fetchHistory();
  const point = findResetPoint(history.events ?? []);
  if (!point) throw new Error(`${workflowId} (run ${description.runId}) has no failure in its history; nothing to rerun`);
  const response: temporal.api.workflowservice.v1.IResetWorkflowExecutionResponse = await client.workflowService.resetWorkflowExecution({
    namespace: client.options.namespace,
    workflowExecution: { workflowId, runId: description.runId },
    reason,
    workflowTaskFinishEventId: Long.fromNumber(point.workflowTaskFinishEventId),
    requestId: randomUUID(),
  });
  return { ...point, workflowId, oldRunId: description.runId, newRunId: response.runId ?? '' };
}
