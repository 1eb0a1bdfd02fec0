// BuildDatasetWorkflow on `pau`: prepare (load, analyse, persist) → sandbox checks in bounded batches on
// `pau-sandbox` (a sliding window of `concurrency` batches of `batchSize` ids) → finalise (dedup, split,
// hash). The history carries ids and counts only; the methods live in Postgres. Progress is a query.
import { ApplicationFailure, defineQuery, proxyActivities, setHandler } from '@temporalio/workflow';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import type { DatasetMainActivities, DatasetSandboxActivities } from '../../activities/dataset/index';
import type { BuildConfigInput } from '../../datasets/config';
import type { BuildSummary } from '../../datasets/summary';

export interface BuildDatasetInput {
  config: BuildConfigInput;
}

export interface DatasetBuildProgress {
  phase: 'preparing' | 'checking' | 'finalizing' | 'done' | 'failed';
  candidates: number;
  staticRejected: number;
  alreadyChecked: number;
  /** Methods for the sandbox in this build, and how many it has checked. */
  total: number;
  checked: number;
  accepted: number;
  rejected: number;
}

export const datasetProgressQuery = defineQuery<DatasetBuildProgress>('datasetProgress');

const main = proxyActivities<DatasetMainActivities>({
  taskQueue: TASK_QUEUES.main,
  startToCloseTimeout: '10m',
  heartbeatTimeout: '1m',
  retry: { maximumAttempts: 5, initialInterval: '1s', nonRetryableErrorTypes: ['BadDatasetConfig', 'ChecksumMismatch', 'SourceUnavailable', 'UncheckedMethods'] },
});

const sandbox = proxyActivities<DatasetSandboxActivities>({
  taskQueue: TASK_QUEUES.sandbox,
  startToCloseTimeout: '15m',
  heartbeatTimeout: '5m',
  retry: { maximumAttempts: 5, initialInterval: '2s', nonRetryableErrorTypes: ['BadDatasetInput'] },
});

export async function buildDatasetWorkflow(input: BuildDatasetInput): Promise<BuildSummary> {
  const config = input.config ?? {};
  const name = config.name ?? 'pau-v1';
  const batchSize = config.batchSize ?? 25;
  const concurrency = config.concurrency ?? 4;
  const progress: DatasetBuildProgress = { phase: 'preparing', candidates: 0, staticRejected: 0, alreadyChecked: 0, total: 0, checked: 0, accepted: 0, rejected: 0 };
  setHandler(datasetProgressQuery, () => progress);
  try {
    const prep = await main.prepareDatasetBuild({ config, batchSize });
    progress.candidates = prep.candidates;
    progress.staticRejected = prep.staticRejected;
    progress.alreadyChecked = prep.alreadyChecked;
    progress.total = prep.batches.reduce((n, b) => n + b.length, 0);
    progress.phase = 'checking';

    // Sliding window: at most `concurrency` batches in flight.
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < prep.batches.length) {
        const ids = prep.batches[next++]!;
        const r = await sandbox.checkMethodsBatch({ ids, ...(config.limits ? { limits: config.limits } : {}) });
        progress.checked += r.checked;
        progress.accepted += r.accepted;
        progress.rejected += r.rejected;
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, prep.batches.length) }, lane));

    progress.phase = 'finalizing';
    const summary = await main.finalizeDatasetBuild({ name });
    progress.phase = 'done';
    return summary;
  } catch (err) {
    progress.phase = 'failed';
    const message = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
    await main.markDatasetBuildFailed({ name, error: message.slice(0, 2000) });
    throw err instanceof ApplicationFailure ? err : ApplicationFailure.nonRetryable(`dataset build ${name} failed: ${message}`, 'DatasetBuildFailed');
  }
}
