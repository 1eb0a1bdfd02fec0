// The GRPO update's input, written on the gpu host (queue `pau-gpu`), where the trainer reads it: one line per
// rollout with the conversation as the policy saw it, its assistant messages as policy messages, the critic's
// step rewards and the judged outcome (docs/training.md, "GRPO update"). No old log-probs are sent: the
// trainer recomputes them with the adapter that sampled the rollouts (the rollouts are on-policy).
import { ApplicationFailure } from '@temporalio/common';
import type { Db } from '../../db/client';
import { loadEpisodeTranscript } from '../episode/transcript';
import { lengthCutMessages, openAiLine, sftConversation } from '../../domain/training/sftData';
import { rolloutLine } from '../../domain/training/grpoRollouts';
import { groupRollouts } from '../../domain/training/rolloutOutcome';
import { TRAINER_FAILURE } from '../../domain/training/trainerProtocol';
import { baseModelFile, writeIfChanged } from './sftGpu';
import { toolsOffered } from './sftData';
import { trainerJobDir } from './runTrainerJob';
import { loadRolloutRows } from './rolloutRows';

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
   * outside the policy: domain/training/rolloutOutcome.ts), `no_policy_message` (nothing the policy wrote).
   * Policy failures are not left out: they train with the minimum reward.
   */
  skipped: Record<string, number>;
  /** Policy messages (assistant turns) over all rollouts, and those the critic rated. */
  policyMessages: number;
  ratedMessages: number;
  /** Policy messages cut at max_tokens (finish reason length): their end-of-turn token is not trained. */
  lengthCutMessages?: number;
}

export function createGrpoGpuActivities(db: () => Db) {
  return {
    async prepareGrpoRollouts(input: PrepareGrpoInput): Promise<PrepareGrpoResult> {
      const baseFile = baseModelFile(input.base);
      const d = db();
      const grouped = groupRollouts(await loadRolloutRows(d, input.runId, input.judgeModel, input.episodeIds), input.codeMatchWeight);
      const skipped: Record<string, number> = {};
      const lines: string[] = [];
      let policyMessages = 0;
      let ratedMessages = 0;
      let lengthCut = 0;
      for (const { row: r, reward: outcome, trained } of grouped.rollouts) {
        if (!trained || outcome === null) {
          skipped.group_skipped = (skipped.group_skipped ?? 0) + 1;
          continue;
        }
        const t = await loadEpisodeTranscript(d, r.episodeId);
        if (!t) continue;
        const assistants = t.steps.filter((s) => s.kind === 'assistant');
        if (assistants.length === 0) {
          skipped.no_policy_message = (skipped.no_policy_message ?? 0) + 1;
          continue;
        }
        const hashes = assistants.map((s) => (s.agentMessage as { requestHash?: string } | null)?.requestHash).filter((h): h is string => !!h);
        const tools = await toolsOffered(d, hashes);
        const line = openAiLine(sftConversation(t.messages), tools.length > 0 ? tools : null) as { messages: { role: string }[]; tools?: unknown };
        const rewards = assistants.map((s) => s.criticReward);
        policyMessages += rewards.length;
        ratedMessages += rewards.filter((x) => x !== null).length;
        const cut = lengthCutMessages(
          line.messages,
          assistants.map((s) => (s.agentMessage as { finishReason?: string } | null)?.finishReason),
        );
        lengthCut += cut.length;
        lines.push(JSON.stringify(rolloutLine(r.episodeId, r.methodId, line, rewards, outcome, cut)));
      }
      if (lines.length === 0) {
        throw ApplicationFailure.nonRetryable(`no usable rollout among ${input.episodeIds.length} (${JSON.stringify(skipped)})`, TRAINER_FAILURE.invalidData);
      }
      const rolloutsFile = `${trainerJobDir(input.jobId)}.rollouts.jsonl`;
      writeIfChanged(rolloutsFile, `${lines.join('\n')}\n`);
      return { rolloutsFile, baseFile, rollouts: lines.length, skipped, policyMessages, ratedMessages, lengthCutMessages: lengthCut };
    },
  };
}
