// The dataset build's activities, per queue. mainQueue.ts and sandboxQueue.ts spread these in.
import type { Db } from '../../db/client';
import { makeCheckMethodsBatch } from './checkBatch';
import { makeFinalizeDatasetBuild, makeMarkDatasetFailed, makePrepareDatasetBuild } from './prepare';
import type { DatasetSandbox } from '../../domain/dataset/sandboxPort';

export function createDatasetMainActivities(db: () => Db) {
  return {
    prepareDatasetBuild: makePrepareDatasetBuild(db),
    finalizeDatasetBuild: makeFinalizeDatasetBuild(db),
    markDatasetBuildFailed: makeMarkDatasetFailed(db),
  };
}

export function createDatasetSandboxActivities(deps: { db: () => Db; sandbox: () => DatasetSandbox }) {
  return { checkMethodsBatch: makeCheckMethodsBatch(deps) };
}

export type DatasetMainActivities = ReturnType<typeof createDatasetMainActivities>;
export type DatasetSandboxActivities = ReturnType<typeof createDatasetSandboxActivities>;
export type { DatasetSandbox } from '../../domain/dataset/sandboxPort';
