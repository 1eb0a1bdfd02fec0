// The gate after a training run's evaluation (GRPO and SFT alike): did the checkpoint move from its base?
// KL(checkpoint || base) on its evaluation agent turns (the trainer's policy-shift job) and the share of
// greedy transcripts departing from the base's (domain/report/policyMoved.ts). Runs only where the caller's
// `patched(POLICY_MOVED_PATCH)` said so: histories recorded before the gate have no such step.
import { type PolicyMovedGate, policyMovedGate, shiftKl } from '../../domain/report/policyMoved';
import { gpuPrepare, training } from '../proxies/gpuQueue';

export async function measurePolicyMoved(input: {
  /** The policy-shift job's id (its directory; a retry reuses it). */
  jobId: string;
  evalRunId: string;
  judgeModel: string;
  checkpointModel: string;
  base: string;
  /** The checkpoint's adapter directory on the gpu host (the trainer job's done checkpoint). */
  adapterDir: string;
  temperature: number;
  maxLength?: number | undefined;
}): Promise<PolicyMovedGate> {
  const { jobId, evalRunId, judgeModel, checkpointModel, base } = input;
  const shiftIn = await gpuPrepare.prepareShiftEpisodes({ jobId, evalRunId, judgeModel, checkpointModel, base });
  const shift = await training.runTrainerJob({
    jobId,
    command: 'policy-shift',
    spec: {
      base_model: shiftIn.baseFile,
      adapter_dir: input.adapterDir,
      episodes: shiftIn.episodesFile,
      temperature: input.temperature,
      ...(input.maxLength !== undefined ? { max_length: input.maxLength } : {}),
    },
  });
  return policyMovedGate(shiftKl(shift.done.metrics), shiftIn);
}
