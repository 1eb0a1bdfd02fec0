// Episode activities on `pau` (Postgres + the model), built with an injected database.
import type { Db } from '../../db/client';
import { makeAgentTurn } from './agentTurn';
import { makeFinishEpisode, makeMarkEpisodeWaiting, makePrepareEpisode } from './lifecycle';

export function createEpisodeActivities(db: () => Db) {
  return {
    prepareEpisode: makePrepareEpisode(db),
    agentTurn: makeAgentTurn(db),
    finishEpisode: makeFinishEpisode(db),
    markEpisodeWaiting: makeMarkEpisodeWaiting(db),
  };
}
