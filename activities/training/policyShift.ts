// The gate's inputs from a training run's evaluation (queue `pau-gpu`, where the trainer reads them): the
// checkpoint's evaluation episodes as trainer lines for the policy-shift job, and whether each greedy
// transcript departs from the base's on the same method, setting and sample (domain/report/policyMoved.ts).
import { ApplicationFailure } from '@temporalio/common';
import type { Db } from '../../db/client';
import { loadEpisodeTranscript } from '../episode/transcript';
import { sftConversation } from '../../domain/training/sftData';
import { servedLine } from '../../domain/training/servedLine';
import { TRAINER_FAILURE } from '../../domain/temporal/failureTypes';
import { baseModelFile, writeIfChanged } from './sftGpu';
import { servedTurns } from './sftData';
import { trainerJobDir } from './runTrainerJob';
import { loadRolloutRows } from '../../db/queries/rolloutRows';
import { agentTurns, transcriptDeparts } from '../../domain/report/policyMoved';

export interface PrepareShiftInput {
  jobId: string;
  evalRunId: string;
  judgeModel: string;
  checkpointModel: string;
  base: string;
}

export interface PrepareShiftResult {
  /** The checkpoint's evaluation episodes as trainer lines (policy-shift's input), and the base's GGUF. */
  episodesFile: string;
  baseFile: string;
  episodes: number;
  /** Methods where both arms have an evaluation episode, and those whose agent turns differ. */
  compared: number;
  departed: number;
}

export function createPolicyShiftActivities(db: () => Db) {
  return {
    /**
     * The gate's inputs from an evaluation run (domain/report/policyMoved.ts): the checkpoint's episodes
     * as trainer lines, each policy message in the request it was served in (servedLine.ts), for the trainer's
     * policy-shift job; and, per method, whether its greedy transcript departs from the base's.
     */
    async prepareShiftEpisodes(input: PrepareShiftInput): Promise<PrepareShiftResult> {
      const d = db();
      const rows = await loadRolloutRows(d, input.evalRunId, input.judgeModel, null);
      const turns = new Map<string, ReturnType<typeof agentTurns>>();
      // one episode per model x method x setting x sample (an SFT evaluation runs both settings)
      const key = (r: { model: string; methodId: string; setting: string; sample: number }) =>
        `${r.model}\u0000${r.methodId}\u0000${r.setting}\u0000${r.sample}`;
      const lines: string[] = [];
      for (const r of rows) {
        if (r.model !== input.checkpointModel && r.model !== input.base) continue;
        const t = await loadEpisodeTranscript(d, r.episodeId);
        if (!t) continue;
        const messages = sftConversation(t.messages);
        turns.set(key(r), agentTurns(messages));
        if (r.model !== input.checkpointModel || !messages.some((m) => m.role === 'assistant')) continue;
        const served = servedLine(messages, (await servedTurns(d, [r.episodeId])).get(r.episodeId) ?? []);
        if (!served.ok) continue;
        lines.push(JSON.stringify({ id: r.episodeId, ...served.line, ...(served.lengthCut.length > 0 ? { length_cut: served.lengthCut } : {}) }));
      }
      let compared = 0;
      let departed = 0;
      for (const r of rows) {
        const mine = r.model === input.checkpointModel ? turns.get(key(r)) : undefined;
        const base = mine ? turns.get(key({ ...r, model: input.base })) : undefined;
        if (!mine || !base) continue;
        compared++;
        if (transcriptDeparts(mine, base)) departed++;
      }
      if (lines.length === 0) {
        throw ApplicationFailure.nonRetryable(
          `evaluation ${input.evalRunId} has no episode of ${input.checkpointModel} with agent turns to measure`,
          TRAINER_FAILURE.invalidData,
        );
      }
      const episodesFile = `${trainerJobDir(input.jobId)}.episodes.jsonl`;
      writeIfChanged(episodesFile, `${lines.join('\n')}\n`);
      return { episodesFile, baseFile: baseModelFile(input.base), episodes: lines.length, compared, departed };
    },
  };
}
