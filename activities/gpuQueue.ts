// Activities served by workers on the `pau-gpu` queue (one activity at a time per GPU).
import { deviceInfo } from './doctor/deviceInfo';
import { getDb, type Db } from '../db/client';
import { createTrainingActivities } from './training/runTrainerJob';
import { createSftGpuActivities } from './training/sftGpu';
import { createGrpoGpuActivities } from './training/grpoGpu';
import { createPolicyShiftActivities } from './training/policyShift';
import { createCheckpointFileActivities } from './training/checkpointFiles';

export function createGpuQueueActivities(deps: { db: () => Db } = { db: getDb }) {
  return {
    deviceInfo,
    // the SFT data file and the base model's file, on the host that trains
    ...createSftGpuActivities(deps.db),
    // the GRPO update's rollouts file
    ...createGrpoGpuActivities(deps.db),
    ...createPolicyShiftActivities(deps.db),
    // a trained checkpoint's files into the store every host reads (activities/training/checkpointFiles.ts)
    ...createCheckpointFileActivities(deps.db),
    // sft | grpo-update | export-gguf-lora, as a child process (activities/training/runTrainerJob.ts);
    // an init adapter this host lacks is fetched from the store
    ...createTrainingActivities({ db: deps.db }),
  };
}

export type GpuQueueActivities = ReturnType<typeof createGpuQueueActivities>;
