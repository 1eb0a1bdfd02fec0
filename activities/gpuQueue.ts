// Activities served by workers on the `pau-gpu` queue (one activity at a time per GPU).
import { deviceInfo } from './doctor/deviceInfo';

export function createGpuQueueActivities() {
  return {
    deviceInfo,
  };
}

export type GpuQueueActivities = ReturnType<typeof createGpuQueueActivities>;
