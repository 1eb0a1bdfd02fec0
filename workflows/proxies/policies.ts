// Named activity options, one per kind of work. Every workflow reaches activities through the proxies in
// this folder (mainQueue.ts, sandboxQueue.ts, gpuQueue.ts); no workflow writes its own options.
import { ActivityCancellationType, type ActivityOptions, type LocalActivityOptions } from '@temporalio/workflow';
import { NON_RETRYABLE_LLM_ERRORS } from '../../domain/llm/errorTypes';
import { FAILURE_TYPES as F, TRAINER_FAILURE } from '../../domain/temporal/failureTypes';
import { TASK_QUEUES } from '../../domain/temporal/queues';

/** Errors of the run's own making (a missing dataset, method, run or episode; a value out of its range): no retry can fix them. */
const NOT_FOUND_OR_UNUSABLE = [
  F.datasetNotFound,
  F.emptySplit,
  F.badRunConfig,
  F.badEpisodeInput,
  F.methodNotFound,
  F.methodUnusable,
  F.runNotFound,
  F.runNotBenchmark,
  F.runIdInUse,
  F.judgeEpisodeNotFound,
  F.judgeCardNoMethods,
  F.criticCardNoEpisodes,
  F.reportRunNotFound,
  F.sftDatasetNotFound,
  F.sftDatasetEmpty,
];

/** Training inputs no retry can fix: a bad spec, an unusable base model, bad data. */
const TRAINING_UNFIXABLE = [
  TRAINER_FAILURE.invalidSpec,
  TRAINER_FAILURE.baseModel,
  TRAINER_FAILURE.invalidData,
  F.baseModelUnusable,
  F.sftDatasetNotFound,
  F.sftDatasetEmpty,
  // a checkpoint's stored file corrupt or missing, or a store this build cannot use
  F.checkpointFileCorrupt,
  F.checkpointFileMissing,
  F.blobStoreUnavailable,
  // rollouts sampled by another adapter than the update's (sampled-with = trained-on)
  F.sampledWithMismatch,
];

export const POLICIES = {
  /** Short Postgres bookkeeping (runs, episodes, listings): quick retries, no limit on attempts. */
  db: {
    taskQueue: TASK_QUEUES.main,
    startToCloseTimeout: '2 minutes',
    retry: { initialInterval: '1s', maximumInterval: '30s', nonRetryableErrorTypes: NOT_FOUND_OR_UNUSABLE },
  },
  /**
   * A model turn: the request timeout is the model's (at most a few minutes); waiting for a concurrency
   * slot heartbeats. 429/5xx/connection errors retry with backoff (Retry-After as the next delay) for about
   * 3 minutes; a longer outage is then waited out by the episode workflow (up to the run's
   * `outageWaitSeconds`, visibly). Auth/validation errors do not retry.
   */
  llm: {
    taskQueue: TASK_QUEUES.main,
    startToCloseTimeout: '15 minutes',
    heartbeatTimeout: '1 minute',
    retry: {
      initialInterval: '2s',
      backoffCoefficient: 2,
      maximumInterval: '30s',
      maximumAttempts: 10,
      nonRetryableErrorTypes: [...NON_RETRYABLE_LLM_ERRORS],
    },
  },
  /** Judge steps: model calls (judge, coder) and the judgment upsert. */
  judge: {
    taskQueue: TASK_QUEUES.main,
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: '2 minutes',
    retry: {
      initialInterval: '1s',
      maximumInterval: '1 minute',
      maximumAttempts: 20,
      nonRetryableErrorTypes: [F.judgeEpisodeNotFound, F.judgeCardNoMethods, F.criticCardNoEpisodes, F.methodNotFound],
    },
  },
  /** Reports and other whole-run reads (they do not heartbeat). */
  report: {
    taskQueue: TASK_QUEUES.main,
    startToCloseTimeout: '10 minutes',
    retry: { initialInterval: '1s', maximumInterval: '1 minute', maximumAttempts: 10, nonRetryableErrorTypes: [F.reportRunNotFound] },
  },
  /** Dataset build phases on `pau` (load, analyse, finalise): long, heartbeating, a few attempts. */
  datasetBuild: {
    taskQueue: TASK_QUEUES.main,
    startToCloseTimeout: '10m',
    heartbeatTimeout: '1m',
    retry: {
      maximumAttempts: 5,
      initialInterval: '1s',
      nonRetryableErrorTypes: [F.badDatasetConfig, F.checksumMismatch, F.sourceUnavailable, F.uncheckedMethods],
    },
  },
  /** One batch of method calls in the sandbox (episodes, judging). */
  sandboxBatch: {
    taskQueue: TASK_QUEUES.sandbox,
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: '1 minute',
    retry: { initialInterval: '1s', maximumInterval: '30s', maximumAttempts: 10 },
  },
  /** A dataset build's batch of sandbox checks (filters, determinism). */
  datasetCheck: {
    taskQueue: TASK_QUEUES.sandbox,
    startToCloseTimeout: '15m',
    heartbeatTimeout: '5m',
    retry: { maximumAttempts: 5, initialInterval: '2s', nonRetryableErrorTypes: [F.badDatasetInput] },
  },
  /**
   * A trainer job on `pau-gpu` (docs/trainer.md): it heartbeats every few seconds; a crash or a lost worker
   * is retried and resumes from the job's last save; cancellation waits for the trainer's save.
   */
  training: {
    taskQueue: TASK_QUEUES.gpu,
    startToCloseTimeout: '24 hours',
    // A lost worker is noticed after this long; the retry then resumes from the job's last save.
    heartbeatTimeout: '1 minute',
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    retry: { initialInterval: '5s', maximumInterval: '1 minute', maximumAttempts: 20, nonRetryableErrorTypes: TRAINING_UNFIXABLE },
  },
  /** Short file work on the gpu host before a trainer job (the data file, the base model's path). */
  gpuPrepare: {
    taskQueue: TASK_QUEUES.gpu,
    startToCloseTimeout: '10 minutes',
    retry: { initialInterval: '2s', maximumInterval: '30s', maximumAttempts: 10, nonRetryableErrorTypes: TRAINING_UNFIXABLE },
  },
} as const satisfies Record<string, ActivityOptions>;

/**
 * Local activities (run in the worker that runs the workflow task; the result is recorded with the task's
 * completion: one Temporal round trip per call fewer).
 */
export const LOCAL_POLICIES = {
  /**
   * A model turn of a model that answers within seconds (PAU_LOCAL_TURN_MAX_SECONDS; episodeWorkflow asks
   * prepareEpisode). Few, quick attempts: a turn that still fails is run again as a normal `llm` activity,
   * whose retries and the episode's outage wait take over (the retry pays nothing twice: llm_calls).
   */
  llmTurn: {
    startToCloseTimeout: '2 minutes',
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '4s', maximumAttempts: 3, nonRetryableErrorTypes: [...NON_RETRYABLE_LLM_ERRORS] },
  },
} as const satisfies Record<string, LocalActivityOptions>;

/**
 * The doctor's probe of one queue: short timeouts and few attempts, so a dead queue (no worker picks the
 * task up within `waitSeconds`) is reported, not waited on forever.
 */
export function probePolicy(taskQueue: string, waitSeconds: number): ActivityOptions {
  return { taskQueue, scheduleToStartTimeout: `${waitSeconds}s`, startToCloseTimeout: '30s', retry: { maximumAttempts: 3, initialInterval: '1s' } };
}
