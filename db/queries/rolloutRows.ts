// The rows that decide each GRPO rollout's reward (domain/training/rolloutOutcome.ts): the run's episodes
// with their judgment by the run's judge, plus whether each ended with a description and its error. Read
// by the epoch's figures (queue pau) and the update's input (pau-gpu), so both count the same rollouts.
import { inArray } from 'drizzle-orm';
import type { Db } from '../client';
import { episodes } from '../schema/runs';
import type { EpisodeRow } from '../../domain/report/summarize';
import type { RolloutOutcomeRow } from '../../domain/training/rolloutOutcome';
import { loadEpisodeRows } from './reportRows';

export type RolloutRow = EpisodeRow &
  RolloutOutcomeRow & {
    /** The adapters that served its turns (episodes.sampled_with; empty when none was recorded). */
    sampledWith: string[];
  };

/** The episodes of `episodeIds` (null: every episode of run `runId`), ordered by episode id. */
export async function loadRolloutRows(db: Db, runId: string, judgeModel: string, episodeIds: readonly string[] | null): Promise<RolloutRow[]> {
  const want = episodeIds ? new Set(episodeIds) : null;
  const rows = (await loadEpisodeRows(db, runId, judgeModel)).filter((r) => !want || want.has(r.episodeId));
  if (rows.length === 0) return [];
  const extra = new Map(
    (
      await db
        .select({ id: episodes.id, finalDescription: episodes.finalDescription, error: episodes.error, sampledWith: episodes.sampledWith })
        .from(episodes)
        .where(
          inArray(
            episodes.id,
            rows.map((r) => r.episodeId),
          ),
        )
    ).map((e) => [e.id, e]),
  );
  return rows
    .map((r) => {
      const e = extra.get(r.episodeId);
      return {
        ...r,
        codeMatchUnobserved: r.codeMatchUnobserved ?? null,
        error: e?.error ?? null,
        hasDescription: !!e?.finalDescription?.trim(),
        sampledWith: e?.sampledWith ?? [],
      };
    })
    .sort((a, b) => a.episodeId.localeCompare(b.episodeId));
}
