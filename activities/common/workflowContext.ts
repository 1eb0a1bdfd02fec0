// The calling workflow's identity, from inside an activity: the base of deterministic keys.
import { activityInfo } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';

export function callingWorkflowId(): string {
  const id = activityInfo().workflowExecution?.workflowId;
  if (!id) throw ApplicationFailure.nonRetryable('this activity must be called from a workflow', FAILURE_TYPES.noWorkflowContext);
  return id;
}
