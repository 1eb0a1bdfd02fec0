// Activities served by workers on the `pau-sandbox` queue (untrusted Python execution).
import { pythonEval } from './doctor/pythonEval';

export function createSandboxQueueActivities() {
  return {
    pythonEval,
  };
}

export type SandboxQueueActivities = ReturnType<typeof createSandboxQueueActivities>;
