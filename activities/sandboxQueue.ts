// Activities served by workers on the `pau-sandbox` queue (untrusted Python execution).
import { getDb } from '../db/client';
import { createDatasetSandboxActivities } from './dataset/index';
import { poolDatasetSandbox } from './dataset/sandboxClient';
import { pythonEval } from './doctor/pythonEval';
import { createSandboxActivities } from './sandbox/index';

export function createSandboxQueueActivities() {
  return {
    pythonEval,
    ...createSandboxActivities(),
    ...createDatasetSandboxActivities({ db: getDb, sandbox: () => poolDatasetSandbox() }),
  };
}

export type SandboxQueueActivities = ReturnType<typeof createSandboxQueueActivities>;
