// The calling workflow's identity, from inside an activity: the base of deterministic keys; and the
// activity's context where code also runs outside one (the CLI, tests).
import { activityInfo, Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';

export function callingWorkflowId(): string {
  const id = activityInfo().workflowExecution?.workflowId;
  if (!id) throw ApplicationFailure.nonRetryable('this activity must be called from a workflow', FAILURE_TYPES.noWorkflowContext);
  return id;
}

/** The running activity's context; undefined when called outside an activity (the CLI, tests). */
export function currentActivity(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}
