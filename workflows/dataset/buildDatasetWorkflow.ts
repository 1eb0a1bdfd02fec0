// BuildDatasetWorkflow on `pau`: prepare (load, analyse, persist) → sandbox checks in bounded batches on
// `pau-sandbox` (a sliding window of `concurrency` batches of `batchSize` ids) → finalise (dedup, split,
// hash). The history carries ids and counts only; the methods live in Postgres. Progress is a query.
// With `first` (npm start), the candidates likeliest to open the test split are checked first, side by
// side, and the progress query says when they are done, so a caller can start a benchmark on them while
// the rest is checked. Only the order of the checks changes: rows and content hash are the same.
import { ApplicationFailure, defineQuery, setHandler } from '@temporalio/workflow';
import { errorText } from '../../domain/temporal/errorText';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import type { BuildConfigInput } from '../../domain/dataset/config';
import type { BuildSummary } from '../../domain/dataset/summary';
import type { SandboxWork } from '../../domain/sandbox/schemas';
import { addWork, NO_WORK } from '../../domain/sandbox/work';
import { fanOut } from '../common/fanOut';
import { datasetBuild as main } from '../proxies/mainQueue';
import { datasetCheck as sandbox } from '../proxies/sandboxQueue';

export interface BuildDatasetInput {
  config: BuildConfigInput;
  /** Test methods wanted before the build ends (not part of the config: it changes no result). */
  first?: number;
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
  /** The sandbox calls this build ran so far (none for verdicts already recorded). */
  work: SandboxWork;
  /** With `first`: the likeliest test-split head, in order, and whether all of it is checked. */
  head?: { ids: string[]; checked: boolean };
}

export const datasetProgressQuery = defineQuery<DatasetBuildProgress>('datasetProgress');

/** The summary as finalised, and the sandbox work this run of the build did. */
export type BuildResult = BuildSummary & { work: SandboxWork };

export async function buildDatasetWorkflow(input: BuildDatasetInput): Promise<BuildResult> {
  const config = input.config ?? {};
  const name = config.name ?? 'pau-v1';
  const batchSize = config.batchSize ?? 25;
  const concurrency = config.concurrency ?? 4;
  const progress: DatasetBuildProgress = {
    phase: 'preparing',
    candidates: 0,
    staticRejected: 0,
    alreadyChecked: 0,
    total: 0,
    checked: 0,
    accepted: 0,
    rejected: 0,
    work: NO_WORK,
  };
  setHandler(datasetProgressQuery, () => progress);
  try {
    // Without `first` the activity's input is what it always was, so recorded histories replay as before.
    const prep = await main.prepareDatasetBuild({ config, batchSize, ...(input.first ? { first: input.first, window: concurrency } : {}) });
    progress.candidates = prep.candidates;
    progress.staticRejected = prep.staticRejected;
    progress.alreadyChecked = prep.alreadyChecked;
    progress.total = prep.batches.reduce((n, b) => n + b.length, 0);
    progress.phase = 'checking';
    let headLeft = prep.headBatches ?? 0;
    if (prep.head) progress.head = { ids: prep.head, checked: headLeft === 0 };

    // Sliding window: at most `concurrency` batches in flight; the first failure fails the build.
    const { failures } = await fanOut(
      prep.batches.map((ids, i) => ({ ids, head: i < headLeft })),
      async ({ ids, head }) => {
        const r = await sandbox.checkMethodsBatch({
          ids,
          ...(config.limits ? { limits: config.limits } : {}),
          ...(config.inputs ? { inputs: config.inputs } : {}),
        });
        progress.checked += r.checked;
        progress.accepted += r.accepted;
        progress.rejected += r.rejected;
        progress.work = addWork(progress.work, r.work ?? NO_WORK);
        if (head && --headLeft === 0 && progress.head) progress.head.checked = true;
      },
      { window: concurrency, failFast: true, pauseWhenSuggested: false },
    );
    if (failures[0]) throw failures[0].error;

    progress.phase = 'finalizing';
    const summary = await main.finalizeDatasetBuild({ name });
    progress.phase = 'done';
    return { ...summary, work: progress.work };
  } catch (err) {
    progress.phase = 'failed';
    const message = errorText(err);
    await main.markDatasetBuildFailed({ name, error: message.slice(0, 2000) });
    throw err instanceof ApplicationFailure
      ? err
      : ApplicationFailure.nonRetryable(`dataset build ${name} failed: ${message}`, FAILURE_TYPES.datasetBuildFailed);
  }
}
