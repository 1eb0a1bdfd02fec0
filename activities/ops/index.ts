// Operations activities on `pau`: reports, scheduled runs' previous run, reruns of failed episodes.
import type { Db } from '../../db/client';
import { makeFailedEpisodes, makeReopenRun } from './reruns';
import { makeProduceReport } from '../report/produceReport';
import { makePreviousScheduledRun, makeWriteScheduledReport } from './scheduledRuns';

export function createOpsActivities(db: () => Db) {
  return {
    previousScheduledRun: makePreviousScheduledRun(db),
    produceReport: makeProduceReport(db),
    writeScheduledReport: makeWriteScheduledReport(db),
    failedEpisodes: makeFailedEpisodes(db),
    reopenRun: makeReopenRun(db),
  };
}

export type OpsActivities = ReturnType<typeof createOpsActivities>;
