// The payload guard on the activity side: an activity whose input the payload codec could not authenticate
// (a mark, domain/temporal/payloadGuard.ts) runs only when it was scheduled before the codec's cut-over
// (an activity of a history that predates the codec, still retrying); otherwise it fails, non-retryable,
// before its code runs. Only a worker of someone else's making can schedule such an activity: this
// project's workflows encrypt every input.
import { ApplicationFailure } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { FAILURE_TYPES } from '../domain/temporal/failureTypes';
import { admit, isGuardMark } from '../domain/temporal/payloadGuard';

export const payloadGuardActivityInterceptor: ActivityInterceptorsFactory = (ctx) => ({
  inbound: {
    execute: (input, next) => {
      if (!input.args.some(isGuardMark)) return next(input);
      const args: unknown[] = [];
      for (const v of input.args) {
        const a = admit(v, ctx.info.scheduledTimestampMs, `the input of activity ${ctx.info.activityType}`);
        if (!a.ok) throw ApplicationFailure.nonRetryable(a.reason, FAILURE_TYPES.unauthenticatedPayload);
        args.push(a.value);
      }
      return next({ ...input, args });
    },
  },
});
