// How the agent's part of an episode ended (the setting's loop returns it; the outcome and the episode row
// carry it).
import type { TurnInput } from '../../domain/episode/types';
import type { TurnOutcome } from './turnWithOutageWait';

export interface EpisodeEnd {
  /** `cancelled`, `submitted`, `no_progress`, `answered_in_text_after_final_ask`, ... (docs/episodes.md). */
  endReason: string;
  finalDescription: string | null;
}

/** The turn fields every turn of one episode shares. */
export type TurnBase = Pick<TurnInput, 'episodeId' | 'methodId' | 'model' | 'setting' | 'budgets' | 'params' | 'replay' | 'names'>;

/** One model turn at the turn boundary (turnWithOutageWait.ts): CANCELLED when the episode was cancelled. */
export type Turn = (t: TurnInput) => Promise<TurnOutcome>;
