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

export function createGrpoGpuActivities(db: () => Db) {
  return {
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
        const text = JSON.stringify(rolloutLine(r.episodeId, r.methodId, served.line, rewards, outcome, [], served.sampled));
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
