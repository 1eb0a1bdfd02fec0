// Operations activities on `pau`: scheduled runs' comparison reports, reruns of failed episodes.
import type { Db } from '../../db/client';
import { makeFailedEpisodes, makeReopenRun } from './reruns';
import { makePreviousScheduledRun, makeWriteScheduledReport } from './scheduledRuns';

export function createOpsActivities(db: () => Db) {
  return {
    previousScheduledRun: makePreviousScheduledRun(db),
    writeScheduledReport: makeWriteScheduledReport(db),
    failedEpisodes: makeFailedEpisodes(db),
    reopenRun: makeReopenRun(db),
  };
}

export type OpsActivities = ReturnType<typeof createOpsActivities>;
