// Benchmark-run activities on `pau`, built with an injected database.
import type { Db } from '../../db/client';
import { makeEpisodeOutcome, makeFinishRun, makeFlagRunCancelling, makeMethodPage, makeRecordEpisodeFailure, makeStartRun } from './run';

export function createBenchActivities(db: () => Db) {
  return {
    startRun: makeStartRun(db),
    methodPage: makeMethodPage(db),
    recordEpisodeFailure: makeRecordEpisodeFailure(db),
    flagRunCancelling: makeFlagRunCancelling(db),
    finishRun: makeFinishRun(db),
    episodeOutcome: makeEpisodeOutcome(db),
  };
}
