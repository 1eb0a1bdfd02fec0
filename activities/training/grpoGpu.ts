// The GRPO update's input, written on the gpu host (queue `pau-gpu`), where the trainer reads it: one line per
// rollout with the conversation and each request as the policy was served it, its assistant messages as policy messages, the critic's
// step rewards and the judged outcome (docs/training.md, "GRPO update"). No old log-probs are sent: the
// trainer recomputes them with the adapter that sampled the rollouts (the rollouts are on-policy).
import { ApplicationFailure } from '@temporalio/common';
import type { Db } from '../../db/client';
import { loadEpisodeTranscript } from '../episode/transcript';
import { sftConversation } from '../../domain/training/sftData';
import { servedLine } from '../../domain/training/servedLine';
import { rolloutLine } from '../../domain/training/grpoRollouts';
import { groupRollouts, type RolloutLineCandidate, wholeGroupLines } from '../../domain/training/rolloutOutcome';
import { TRAINER_FAILURE } from '../../domain/temporal/failureTypes';
import { baseModelFile, writeIfChanged } from './sftGpu';
import { servedTurns } from './sftData';
import { trainerJobDir } from './runTrainerJob';
import { loadRolloutRows } from '../../db/queries/rolloutRows';
import type { SampledRollout } from '../../domain/training/sampledWith';
import { agentTurns, transcriptDeparts } from '../../domain/training/policyMoved';

export interface PrepareGrpoInput {
  jobId: string;
  runId: string;
  base: string;
  judgeModel: string;
  codeMatchWeight: number;
  episodeIds: string[];
}

export interface PrepareGrpoResult {
  rolloutsFile: string;
  baseFile: string;
  rollouts: number;
  /**
   * Rollouts left out, by reason: `group_skipped` (a rollout of its group had no usable reward for a reason
   * outside the policy: domain/training/rolloutOutcome.ts), `no_policy_message` (nothing the policy wrote),
   * `not_as_served` (a request not in the ledger as the transcript says: servedLine.ts), `no_transcript`, and
   * `group_dropped` (the siblings of a rollout left out for one of those three: the whole group goes).
   * Policy failures are not left out: they train with the minimum reward.
   */
  skipped: Record<string, number>;
  /** Policy messages (assistant turns) over all rollouts, and those the critic rated. */
  policyMessages: number;
  ratedMessages: number;
  /** Policy messages cut at max_tokens (finish reason length): their end-of-turn token is not trained. */
  lengthCutMessages?: number;
  /**
   * Each written rollout and the adapters that served its turns (episodes.sampled_with): the update trains
   * them only with the adapter that sampled them (domain/training/sampledWith.ts). Absent from results
   * recorded before the record existed.
   */
  sampledWith?: SampledRollout[];
}

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

export function createGrpoGpuActivities(db: () => Db) {
  return {
    /**
     * The gate's inputs from an evaluation run (domain/training/policyMoved.ts): the checkpoint's episodes
     * as trainer lines, each policy message in the request it was served in (servedLine.ts), for the trainer's
     * policy-shift job; and, per method, whether its greedy transcript departs from the base's.
     */
    async prepareShiftEpisodes(input: PrepareShiftInput): Promise<PrepareShiftResult> {
      const d = db();
      const rows = await loadRolloutRows(d, input.evalRunId, input.judgeModel, null);
      const turns = new Map<string, ReturnType<typeof agentTurns>>();
      const lines: string[] = [];
      for (const r of rows) {
        if (r.model !== input.checkpointModel && r.model !== input.base) continue;
        const t = await loadEpisodeTranscript(d, r.episodeId);
        if (!t) continue;
        const messages = sftConversation(t.messages);
        turns.set(`${r.model}|${r.methodId}`, agentTurns(messages));
        if (r.model !== input.checkpointModel || !messages.some((m) => m.role === 'assistant')) continue;
        const served = servedLine(messages, (await servedTurns(d, [r.episodeId])).get(r.episodeId) ?? []);
        if (!served.ok) continue;
        lines.push(JSON.stringify({ id: r.episodeId, ...served.line, ...(served.lengthCut.length > 0 ? { length_cut: served.lengthCut } : {}) }));
      }
      let compared = 0;
      let departed = 0;
      for (const [key, mine] of turns) {
        const [model, methodId] = [key.slice(0, key.indexOf('|')), key.slice(key.indexOf('|') + 1)];
        if (model !== input.checkpointModel) continue;
        const base = turns.get(`${input.base}|${methodId}`);
        if (!base) continue;
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

    async prepareGrpoRollouts(input: PrepareGrpoInput): Promise<PrepareGrpoResult> {
      const baseFile = baseModelFile(input.base);
      const d = db();
      const rows = await loadRolloutRows(d, input.runId, input.judgeModel, input.episodeIds);
      const sampledBy = new Map(rows.map((r) => [r.episodeId, r.sampledWith]));
      const grouped = groupRollouts(rows, input.codeMatchWeight);
      const skipped: Record<string, number> = {};
      const candidates: RolloutLineCandidate<{ text: string; rewards: (number | null)[]; lengthCut: number; sampled: SampledRollout }>[] = [];
      for (const { row: r, reward: outcome, trained } of grouped.rollouts) {
        if (!trained || outcome === null) {
          skipped.group_skipped = (skipped.group_skipped ?? 0) + 1;
          continue;
        }
        const t = await loadEpisodeTranscript(d, r.episodeId);
        if (!t) {
          candidates.push({ group: r.methodId, drop: 'no_transcript' });
          continue;
        }
        const assistants = t.steps.filter((s) => s.kind === 'assistant');
        if (assistants.length === 0) {
          candidates.push({ group: r.methodId, drop: 'no_policy_message' });
          continue;
        }
        // Each policy message in the request it was sampled from (its tools, its reasoning): servedLine.ts.
        const served = servedLine(sftConversation(t.messages), (await servedTurns(d, [r.episodeId])).get(r.episodeId) ?? []);
        if (!served.ok) {
          candidates.push({ group: r.methodId, drop: 'not_as_served' });
          continue;
        }
        const rewards = assistants.map((s) => s.criticReward);
        const text = JSON.stringify(rolloutLine(r.episodeId, r.methodId, served.line, rewards, outcome));
        const sampled = { id: r.episodeId, sampledWith: sampledBy.get(r.episodeId) ?? [] };
        candidates.push({ group: r.methodId, line: { text, rewards, lengthCut: served.lengthCut.length, sampled } });
      }
      // One rollout dropped drops its group (domain/training/rolloutOutcome.ts, wholeGroupLines).
      const whole = wholeGroupLines(candidates);
      for (const [k, n] of Object.entries(whole.dropped)) skipped[k] = n;
      const lines = whole.lines.map((l) => l.text);
      const policyMessages = whole.lines.reduce((n, l) => n + l.rewards.length, 0);
      const ratedMessages = whole.lines.reduce((n, l) => n + l.rewards.filter((x) => x !== null).length, 0);
      const lengthCut = whole.lines.reduce((n, l) => n + l.lengthCut, 0);
      if (lines.length === 0) {
        throw ApplicationFailure.nonRetryable(`no usable rollout among ${input.episodeIds.length} (${JSON.stringify(skipped)})`, TRAINER_FAILURE.invalidData);
      }
      const rolloutsFile = `${trainerJobDir(input.jobId)}.rollouts.jsonl`;
      writeIfChanged(rolloutsFile, `${lines.join('\n')}\n`);
      const sampledWith = whole.lines.map((l) => l.sampled);
      return { rolloutsFile, baseFile, rollouts: lines.length, skipped, policyMessages, ratedMessages, lengthCutMessages: lengthCut, sampledWith };
    },
  };
}
