// Benchmark-run activities on `pau`, built with an injected database.
import type { Db } from '../../db/client';
import { makeEpisodeOutcome, makeFinishRun, makeMethodPage, makeRecordEpisodeFailure, makeStartRun } from './run';

export function createBenchActivities(db: () => Db) {
  return {
    startRun: makeStartRun(db),
    methodPage: makeMethodPage(db),
    recordEpisodeFailure: makeRecordEpisodeFailure(db),
    finishRun: makeFinishRun(db),
    episodeOutcome: makeEpisodeOutcome(db),
  };
}
