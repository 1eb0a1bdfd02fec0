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
  /**
   * With `first`: the candidates likeliest to open the test split, in that order (checked or not), and
   * how many of the leading `batches` hold the unchecked ones among them (cut into `window` batches, so
   * they are checked side by side before anything else).
   */
  head?: string[];
  headBatches?: number;
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
  return async function prepareDatasetBuild(input: {
    config: unknown;
    batchSize: number;
    /** Test methods wanted before the build ends, and the build's window of batches in flight. */
    first?: number;
    window?: number;
  }): Promise<PrepareDatasetResult> {
    const ctx = Context.current();
    const beat = setInterval(() => ctx.heartbeat('preparing'), 2_000);
    try {
      const r = await prepareBuild(db(), input.config, callingWorkflowId(), {
        onProgress: (what) => ctx.heartbeat(what),
        ...(input.first ? { first: input.first } : {}),
      });
      const inHead = new Set(r.head ?? []);
      const unchecked = new Set(r.toCheck);
      const headIds = (r.head ?? []).filter((id) => unchecked.has(id));
      const rest = r.head ? r.toCheck.filter((id) => !inHead.has(id)) : r.toCheck;
      const batches: string[][] = [];
      const per = Math.max(1, Math.ceil(headIds.length / Math.max(1, input.window ?? 1)));
      for (let i = 0; i < headIds.length; i += per) batches.push(headIds.slice(i, i + per));
      const headBatches = batches.length;
      for (let i = 0; i < rest.length; i += input.batchSize) batches.push(rest.slice(i, i + input.batchSize));
      const out = { candidates: r.candidates, staticRejected: r.staticRejected, alreadyChecked: r.alreadyChecked, batches };
      return r.head ? { ...out, head: r.head, headBatches } : out;
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
