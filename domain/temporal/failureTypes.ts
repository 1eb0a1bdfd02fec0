// Failure types of errors that retrying cannot fix: activities throw `ApplicationFailure.nonRetryable(msg,
// TYPE)` and workflows list the same constants in `nonRetryableErrorTypes`, so a typo is a compile error,
// not an error that silently becomes retryable (dbUnavailable, at the end, is the one retryable type).
// Model-call types are in domain/llm/errorTypes.ts.
export const FAILURE_TYPES = {
  // benchmark runs
  datasetNotFound: 'DatasetNotFound',
  emptySplit: 'EmptySplit',
  /** A paired evaluation whose arms are served by different stacks (domain/llm/servingStack.ts). */
  mixedServingStacks: 'MixedServingStacks',
  runPlanChanged: 'RunPlanChanged',
  runNotFound: 'RunNotFound',
  runNotBenchmark: 'RunNotBenchmark',
  runIdInUse: 'RunIdInUse',
  /** A benchmark config that cannot run as given (a method limit for a model the run does not have, a budget out of its range). */
  badRunConfig: 'BadRunConfig',
  // episodes
  /** An episode's budgets or in-context k out of their ranges (domain/episode/bounds.ts). */
  badEpisodeInput: 'BadEpisodeInput',
  methodNotFound: 'MethodNotFound',
  methodUnusable: 'MethodUnusable',
  /** The episode's model stayed unreachable past the run's outage wait (outageWaitSeconds). */
  modelOutageTooLong: 'ModelOutageTooLong',
  /** Postgres stayed unreachable during a turn past the run's outage wait (outageWaitSeconds). */
  dbOutageTooLong: 'DbOutageTooLong',
  // judging
  judgeEpisodeNotFound: 'JudgeEpisodeNotFound',
  /** A judge card with too few usable methods (no reference descriptions on the split). */
  judgeCardNoMethods: 'JudgeCardNoMethods',
  /** A critic card with no usable recorded episode (no interactive benchmark episode with a new step and a reference). */
  criticCardNoEpisodes: 'CriticCardNoEpisodes',
  // reports
  reportRunNotFound: 'ReportRunNotFound',
  /** produceReport's input failed its schema (an unknown kind, a missing run id). */
  reportBadInput: 'ReportBadInput',
  // dataset builds
  badDatasetConfig: 'BadDatasetConfig',
  badDatasetInput: 'BadDatasetInput',
  checksumMismatch: 'ChecksumMismatch',
  sourceUnavailable: 'SourceUnavailable',
  uncheckedMethods: 'UncheckedMethods',
  datasetBuildFailed: 'DatasetBuildFailed',
  // the sandbox service
  sandboxBadRequest: 'SandboxBadRequest',
  sandboxUnavailable: 'SandboxUnavailable',
  // SFT and checkpoints
  sftDatasetNotFound: 'SftDatasetNotFound',
  sftDatasetEmpty: 'SftDatasetEmpty',
  checkpointNotFound: 'CheckpointNotFound',
  checkpointNotServable: 'CheckpointNotServable',
  baseModelUnusable: 'BaseModelUnusable',
  /** A stored checkpoint file whose bytes do not hash to its recorded sha256 (fetched, or about to be stored). */
  checkpointFileCorrupt: 'CheckpointFileCorrupt',
  /** A checkpoint file that is neither on this host nor in the store. */
  checkpointFileMissing: 'CheckpointFileMissing',
  /** PAU_CHECKPOINT_STORE names a store this build cannot use (s3: configuration only, no client yet). */
  blobStoreUnavailable: 'BlobStoreUnavailable',
  /**
   * A GRPO batch with a rollout sampled by another adapter than the one the update computes old log-probs
   * with (domain/training/sampledWith.ts): retrying trains the same batch with the same adapter.
   */
  sampledWithMismatch: 'SampledWithMismatch',
  // activity plumbing
  noWorkflowContext: 'NoWorkflowContext',
  /**
   * A workflow input, activity input or result that was not encrypted with the deployment's payload key
   * (or failed authentication), in a workflow that does not predate the codec: someone else wrote it.
   */
  unauthenticatedPayload: 'UnauthenticatedPayload',
  /** Retryable, unlike the rest: Postgres was unreachable (restart, crash recovery, lost connection). */
  dbUnavailable: 'DbUnavailable',
} as const;

export type FailureType = (typeof FAILURE_TYPES)[keyof typeof FAILURE_TYPES];

/** ApplicationFailure types of runTrainerJob. The first three are non-retryable (a retry cannot fix them). */
export const TRAINER_FAILURE = {
  invalidSpec: 'TrainerInvalidSpec',
  baseModel: 'TrainerBaseModel',
  invalidData: 'TrainerInvalidData',
  /** The trainer crashed or was killed: retryable, and a retry resumes from the last complete save. */
  crashed: 'TrainerCrashed',
  /** The trainer stopped on SIGTERM that this activity did not send (e.g. the worker shut down): retryable. */
  interrupted: 'TrainerInterrupted',
  /** The trainer's virtualenv could not be set up (trainer/setup.sh failed). */
  setup: 'TrainerSetupFailed',
} as const;
