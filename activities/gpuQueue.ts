// Activities served by workers on the `pau-gpu` queue (one activity at a time per GPU).
import { deviceInfo } from './doctor/deviceInfo';
import { createTrainingActivities } from './training/runTrainerJob';

export function createGpuQueueActivities() {
  return {
    deviceInfo,
    // sft | grpo-update | export-gguf-lora, as a child process (activities/training/runTrainerJob.ts)
    ...createTrainingActivities(),
  };
}

export type GpuQueueActivities = ReturnType<typeof createGpuQueueActivities>;
