// `prepareDatasetBuild` and `finalizeDatasetBuild` on `pau`: the Postgres ends of a build (build.ts).
// Bad input (a bad config, a missing or corrupt source file) is a non-retryable, typed ApplicationFailure.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { ZodError } from 'zod';
import type { Db } from '../../db/client';
import { finalizeBuild, prepareBuild, UncheckedMethodsError } from './build';
import { ChecksumMismatchError, SourceUnavailableError } from '../../platform/dataset/fetch';
import { markDatasetFailed } from '../../platform/dataset/store';
import type { BuildSummary } from '../../domain/dataset/summary';
import { callingWorkflowId } from '../common/workflowContext';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';

export interface PrepareDatasetResult {
  candidates: number;
  staticRejected: number;
  alreadyChecked: number;
  /** Method ids for the sandbox, already cut into batches (ids only: the code stays in Postgres). */
  batches: string[][];
}

function typed(err: unknown): never {
  if (err instanceof ZodError)
    throw ApplicationFailure.nonRetryable(
      `bad dataset config: ${err.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
      FAILURE_TYPES.badDatasetConfig,
    );
  if (err instanceof ChecksumMismatchError) throw ApplicationFailure.nonRetryable(err.message, FAILURE_TYPES.checksumMismatch);
  if (err instanceof SourceUnavailableError) throw ApplicationFailure.nonRetryable(err.message, FAILURE_TYPES.sourceUnavailable);
  if (err instanceof UncheckedMethodsError) throw ApplicationFailure.nonRetryable(err.message, FAILURE_TYPES.uncheckedMethods);
  throw err;
}

export function makePrepareDatasetBuild(db: () => Db) {
  return async function prepareDatasetBuild(input: { config: unknown; batchSize: number }): Promise<PrepareDatasetResult> {
    const ctx = Context.current();
    const beat = setInterval(() => ctx.heartbeat('preparing'), 2_000);
    try {
      const r = await prepareBuild(db(), input.config, callingWorkflowId(), { onProgress: (what) => ctx.heartbeat(what) });
      const batches: string[][] = [];
      for (let i = 0; i < r.toCheck.length; i += input.batchSize) batches.push(r.toCheck.slice(i, i + input.batchSize));
      return { candidates: r.candidates, staticRejected: r.staticRejected, alreadyChecked: r.alreadyChecked, batches };
    } catch (err) {
      typed(err);
    } finally {
      clearInterval(beat);
    }
  };
}

export function makeFinalizeDatasetBuild(db: () => Db) {
  return async function finalizeDatasetBuild(input: { name: string }): Promise<BuildSummary> {
    try {
      const s = await finalizeBuild(db(), input.name);
      // Keep the workflow's result small: the per-record lists stay in Postgres.
      return { ...s, loadRejects: s.loadRejects.slice(0, 20), duplicates: s.duplicates.slice(0, 20) };
    } catch (err) {
      typed(err);
    }
  };
}

export function makeMarkDatasetFailed(db: () => Db) {
  return async function markDatasetBuildFailed(input: { name: string; error: string }): Promise<void> {
    await markDatasetFailed(db(), input.name, input.error);
  };
}
