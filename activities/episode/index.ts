// Episode activities on `pau` (Postgres + the model), built with an injected database.
import type { Db } from '../../db/client';
import type { ModelEndpoints } from '../llm/endpoints';
import { makeAgentTurn } from './agentTurn';
import { makeFinishEpisode, makeMarkEpisodeWaiting, makePrepareEpisode } from './lifecycle';
import { createCoverageActivities } from './coverage';

export function createEpisodeActivities(db: () => Db, endpoints: ModelEndpoints) {
  return {
    prepareEpisode: makePrepareEpisode(db),
    agentTurn: makeAgentTurn(db, endpoints),
    finishEpisode: makeFinishEpisode(db),
    markEpisodeWaiting: makeMarkEpisodeWaiting(db),
    ...createCoverageActivities(db),
  };
}
