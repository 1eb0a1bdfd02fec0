// The produceReport activity (queue `pau`): the report producer (platform/report/produceReport.ts) for the
// workflows. The benchmark run ends with it, scheduled runs call it with the previous run, SFT and GRPO runs
// at their end. What it adds is Temporal's side: a ReportError (bad input, no such run) is a typed
// non-retryable failure, since a retry would read the same rows.
import { ApplicationFailure } from '@temporalio/common';
import type { Db } from '../../db/client';
import { ReportError } from '../../domain/report/reportError';
import type { ProducedReport, ProduceReportInput } from '../../domain/report/reportRequest';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import { produceReport as produce } from '../../platform/report/produceReport';

export function makeProduceReport(db: () => Db) {
  return async function produceReport(input: ProduceReportInput): Promise<ProducedReport> {
    try {
      return await produce(db(), input);
    } catch (err) {
      if (!(err instanceof ReportError)) throw err;
      throw ApplicationFailure.nonRetryable(err.message, err.reason === 'badInput' ? FAILURE_TYPES.reportBadInput : FAILURE_TYPES.reportRunNotFound);
    }
  };
}
