// What an episode has used so far: turns, method calls, tokens and cost, and its next free step index.
// The episode's outcome reports it, also when the episode failed halfway.
import type { EpisodeOutcome, EpisodeStatus, TurnResult } from '../../domain/episode/types';

export interface EpisodeTally {
  turns: number;
  callsMade: number;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
  /** The next free step index (prepareEpisode's, then each turn's). */
  nextIdx: number;
}

export function newTally(): EpisodeTally {
  return { turns: 0, callsMade: 0, tokensIn: 0, tokensOut: 0, costUsd: 0, nextIdx: 0 };
}

/** Counts one model turn that ran. */
export function addTurn(tally: EpisodeTally, r: TurnResult): void {
  tally.turns++;
  tally.tokensIn += r.tokensIn;
  tally.tokensOut += r.tokensOut;
  tally.costUsd += r.costUsd;
  tally.nextIdx = r.nextIdx;
}

/** The episode's outcome: how it ended and what it used. */
export function outcomeOf(episodeId: string, status: EpisodeStatus, endReason: string, t: EpisodeTally): EpisodeOutcome {
  return { episodeId, status, endReason, callsMade: t.callsMade, turns: t.turns, tokensIn: t.tokensIn, tokensOut: t.tokensOut, costUsd: t.costUsd };
}
