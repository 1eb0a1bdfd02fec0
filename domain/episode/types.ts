// Types shared by the episode activities and workflows (type-only imports from workflow code).
import type { ModelParams } from '../llm/modelParams';
import type { CallResult, SandboxLimits } from '../sandbox/schemas';
import type { MethodView, NameSetting } from './names';

export const SETTINGS = ['interactive', 'in-context'] as const;
export type Setting = (typeof SETTINGS)[number];

export interface EpisodeBudgets {
  /** Method calls the agent may make (default 20). */
  maxCalls: number;
  /** Model turns before the agent is asked for its final description (default 20). */
  maxTurns: number;
  /**
   * Consecutive turns without progress (no valid call run, no description submitted) after which the
   * episode ends early with end reason `no_progress` instead of burning the turn budget (default 3).
   */
  maxIdleTurns: number;
}
export const DEFAULT_BUDGETS: EpisodeBudgets = { maxCalls: 20, maxTurns: 20, maxIdleTurns: 3 };
/** Where in-context examples come from. `generated` (default): budget-matched, k = the interactive call
 * budget (maxCalls), the probe inputs then inputs from the typed generator (domain/inputs/generator.ts),
 * the same for every model. `probe`: the first k probe inputs only (the behaviour before issue 12). */
export const IN_CONTEXT_EXAMPLES = ['generated', 'probe'] as const;
export type InContextExamples = (typeof IN_CONTEXT_EXAMPLES)[number];
/** `probe` mode's k when none is given (the generated mode's default is the call budget). */
export const DEFAULT_IN_CONTEXT_K = 10;

export interface EpisodeInput {
  runId: string;
  /** `${runId}/${methodId}/${model}/${setting}/${sample}` (see episodeIdOf). */
  episodeId: string;
  methodId: string;
  model: string;
  setting: Setting;
  sample: number;
  split?: string;
  budgets?: Partial<EpisodeBudgets>;
  /** In-context: how many examples (default: budgets.maxCalls when generated, DEFAULT_IN_CONTEXT_K for probe). */
  k?: number;
  /** In-context: where the examples come from (default `generated`). */
  inContextExamples?: InContextExamples;
  /** Model params overriding the model's defaults. */
  params?: ModelParams;
  /** Answer model calls from the cache even when params are not deterministic (replaying a run). */
  replay?: boolean;
  sandboxLimits?: SandboxLimits;
  /**
   * Where the method calls run (unset: `queue`; benchmark starters fill PAU_SANDBOX_PLACEMENT, default
   * `inline`): `queue` is one `runMethodBatch` activity on `pau-sandbox` per
   * step, so the sandbox can live on other hosts; `inline` folds each step's calls into the next model turn
   * (one activity per step, on the `pau` worker's own sandbox pool), for a sandbox on the same host.
   */
  sandbox?: SandboxPlacement;
  /** The longest this episode waits for an unreachable model (seconds; default DEFAULT_OUTAGE_WAIT_SECONDS). */
  outageWaitSeconds?: number;
  /** The first sleep between tries while an outage is waited out (seconds, doubling; default 5: DEFAULT_OUTAGE_FIRST_RETRY_MS). */
  outageFirstRetrySeconds?: number;
  /** Overrides the model turn's activity retries (the chaos script shortens them; default POLICIES.llm). */
  modelRetry?: ModelRetry;
  /**
   * Judge the episode once it is persisted (a judgeEpisodeWorkflow child); its failure never fails the episode.
   * `byRun`: the benchmark run starts that child itself once the episode has ended, so judging never holds the
   * episode's place in the run's window (benchmarkRunWorkflow); the episode only records its judge.
   */
  judge?: { judgeModel: string; byRun?: boolean };
  /** What the agent is told the method is called (domain/episode/names.ts); absent: `original`. */
  names?: NameSetting;
}

/** The part of the model turn's retry policy a run may override (Temporal duration strings or ms). */
export const SANDBOX_PLACEMENTS = ['queue', 'inline'] as const;
export type SandboxPlacement = (typeof SANDBOX_PLACEMENTS)[number];

/** The previous turn's calls, for a turn that runs them itself (placement `inline`). */
export interface PendingBatch {
  calls: PendingCall[];
  code: string;
  entryPoint: string;
  limits?: SandboxLimits;
}

export interface ModelRetry {
  maximumAttempts?: number;
  initialInterval?: string;
  maximumInterval?: string;
}

export interface PreparedEpisode {
  code: string;
  entryPoint: string;
  signature: string;
  /** In-context: the example inputs (see InContextExamples). Interactive: []. */
  exampleInputs: string[];
  /** The next free step index. */
  nextIdx: number;
  /** The method as the agent sees it, when that is not as stored (the anonymised name setting). */
  shown?: MethodView;
  /**
   * The model answers within PAU_LOCAL_TURN_MAX_SECONDS: its turns run as local activities (absent in
   * histories recorded before local turns: normal activities).
   */
  localTurns?: boolean;
}

export interface PendingCall {
  /** The step index reserved for this call's observation. */
  stepIdx: number;
  toolCallId: string;
  arguments: string;
}

export interface CallOutcome {
  stepIdx: number;
  toolCallId?: string;
  arguments: string;
  result: CallResult;
}

export type TurnMode = 'explore' | 'final' | 'answer';
export type AnswerKind = 'tool_calls' | 'submitted' | 'empty_submission' | 'text' | 'refusal' | 'empty' | 'problems_only';

export interface TurnInput {
  episodeId: string;
  methodId: string;
  model: string;
  setting: Setting;
  /** The next free step index. */
  idx: number;
  /** Results of the previous turn's calls, persisted at their reserved indices before the model is called. */
  observations: CallOutcome[];
  /** Placement `inline`: calls to run first (their outcomes then persisted like `observations`). */
  pending?: PendingBatch;
  /** In-context: the examples (persisted as `example` steps, shown in the user prompt). */
  examples?: CallOutcome[];
  /** In-context: how the prompt names the function. */
  signature?: string;
  entryPoint?: string;
  /**
   * A user message to add before the model's turn. `reask`: the one re-ask after a final answer with no
   * description (reason = that answer's kind; sent without tools, see finalReaskPrompt).
   */
  prompt?: { kind: 'nudge' | 'final' | 'reask'; reason: string };
  mode: TurnMode;
  callsLeft: number;
  budgets: EpisodeBudgets;
  params?: ModelParams;
  replay?: boolean;
  /** The run's name setting (domain/episode/names.ts); absent: `original`. */
  names?: NameSetting;
}

export interface TurnResult {
  nextIdx: number;
  /** Valid calls to run in the sandbox (their steps are reserved, observations pending). */
  calls: PendingCall[];
  answer: AnswerKind;
  /** The submitted description, or the plain-text answer. */
  text?: string;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
  cached: boolean;
  /** Tool calls recorded as problems (malformed JSON, unknown tool, over budget, ...). */
  problems: number;
  /** A local turn found its run being cancelled (runs.cancelRequestedAt): the workflow lets the request in. */
  runCancelling?: boolean;
}

export type EpisodeStatus = 'completed' | 'failed' | 'cancelled';
export interface EpisodeOutcome {
  episodeId: string;
  status: EpisodeStatus;
  endReason: string;
  callsMade: number;
  turns: number;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
  error?: string;
}

export function episodeIdOf(runId: string, methodId: string, model: string, setting: Setting, sample: number): string {
  return `${runId}/${methodId}/${model}/${setting}/${sample}`;
}
