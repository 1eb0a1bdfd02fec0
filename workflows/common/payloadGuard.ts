// The payload guard inside the workflow sandbox (bundled through workflowInterceptorModules, see
// workers/workflowBundle.ts): every value the workers' payload codec could not authenticate arrives here as
// a mark (domain/temporal/payloadGuard.ts), and is admitted only in a workflow started before the codec's
// cut-over (a history that predates it). Otherwise a workflow input is refused with a non-retryable
// failure before the workflow's code runs (so before any activity), an activity or child result fails
// where the workflow awaits it, and a signal is dropped (a forged signal must not fail the owner's
// workflow). Values that were encrypted pass through untouched, so recorded histories replay as before.
import {
  ApplicationFailure,
  log,
  workflowInfo,
  type ActivityInput,
  type LocalActivityInput,
  type Next,
  type QueryInput,
  type SignalInput,
  type StartChildWorkflowExecutionInput,
  type UpdateInput,
  type WorkflowExecuteInput,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptors,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import { admit, isGuardMark, NO_INPUT_REASON } from '../../domain/temporal/payloadGuard';

const startedMs = () => workflowInfo().startTime.getTime();

function refused(reason: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(reason, FAILURE_TYPES.unauthenticatedPayload);
}

/** The values restored, or the first refusal. */
function admitAll(values: unknown[], what: string): { ok: true; values: unknown[] } | { ok: false; reason: string } {
  if (!values.some(isGuardMark)) return { ok: true, values };
  const out: unknown[] = [];
  for (const v of values) {
    const a = admit(v, startedMs(), what);
    if (!a.ok) return a;
    out.push(a.value);
  }
  return { ok: true, values: out };
}

/**
 * Calls `next` with the values restored, or returns the refusal as a rejected promise: a failure thrown
 * synchronously out of an interceptor fails the workflow *task* (retried for ever), a rejection fails the
 * workflow (or the update or query) with the non-retryable error.
 */
function admitThen<T>(values: unknown[], what: string, next: (values: unknown[]) => Promise<T>): Promise<T> {
  const a = admitAll(values, what);
  return a.ok ? next(a.values) : Promise.reject(refused(a.reason));
}

/** A result: one `.then` hop, and only a mark is looked at. */
function admitResult(value: unknown, what: string): unknown {
  if (!isGuardMark(value)) return value;
  const a = admit(value, startedMs(), what);
  if (!a.ok) throw refused(a.reason);
  return a.value;
}

class GuardInbound implements WorkflowInboundCallsInterceptor {
  execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    if (input.args.length === 0) return Promise.reject(refused(NO_INPUT_REASON));
    return admitThen(input.args, 'workflow input', (args) => next({ ...input, args }));
  }

  handleSignal(input: SignalInput, next: Next<WorkflowInboundCallsInterceptor, 'handleSignal'>): Promise<void> {
    const a = admitAll(input.args, `signal ${input.signalName}`);
    if (!a.ok) {
      log.warn(`signal ignored: ${a.reason}`);
      return Promise.resolve();
    }
    return next({ ...input, args: a.values });
  }

  validateUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'validateUpdate'>): void {
    // A validator's throw rejects the update (it is not a workflow task failure).
    const a = admitAll(input.args, `update ${input.name}`);
    if (!a.ok) throw refused(a.reason);
    next({ ...input, args: a.values });
  }

  handleUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'handleUpdate'>): Promise<unknown> {
    return admitThen(input.args, `update ${input.name}`, (args) => next({ ...input, args }));
  }

  handleQuery(input: QueryInput, next: Next<WorkflowInboundCallsInterceptor, 'handleQuery'>): Promise<unknown> {
    return admitThen(input.args, `query ${input.queryName}`, (args) => next({ ...input, args }));
  }
}

class GuardOutbound implements WorkflowOutboundCallsInterceptor {
  scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>): Promise<unknown> {
    return next(input).then((v) => admitResult(v, `the result of activity ${input.activityType}`));
  }

  scheduleLocalActivity(input: LocalActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>): Promise<unknown> {
    return next(input).then((v) => admitResult(v, `the result of local activity ${input.activityType}`));
  }

  async startChildWorkflowExecution(
    input: StartChildWorkflowExecutionInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'startChildWorkflowExecution'>,
  ): Promise<[Promise<string>, Promise<unknown>]> {
    const [started, result] = await next(input);
    return [started, result.then((v) => admitResult(v, `the result of child workflow ${input.workflowType}`))];
  }
}

export const interceptors = (): WorkflowInterceptors => ({ inbound: [new GuardInbound()], outbound: [new GuardOutbound()] });
