// Types shared by the judge activities and workflows (workflows import these as types only).
import type { ModelParams } from '../llm/modelParams';
import type { EqualityOptions } from './outcomeEquality';
import type { HeldoutOptions } from './codeMatch';
import type { JudgeFormat } from './judgePrompt';
import type { ScoreDetail } from './scoreDistribution';

export interface JudgeConfig {
  /** The model that scores descriptions. */
  judgeModel: string;
  /** The model that writes code from the description (default: the judge model). */
  coderModel: string;
  /**
   * Request params of the judge and the coder: the run's overrides (`judge.judgeParams`, `judge.coderParams`)
   * before planning, what is sent after (the registry entry's params with those overrides, minus the
   * params the entry's endpoint rejects). Recorded in the judgment's diagnostics (`requestParams`).
   */
  judgeParams?: ModelParams;
  coderParams?: ModelParams;
  heldout: HeldoutOptions;
  equality: EqualityOptions;
  /** Coverage below this is "under-explored". */
  underExploredThreshold: number;
  /** Per-call result size cap for judging batches (keeps workflow payloads small). */
  resultBytes: number;
  /** The judge's prompt format (domain/judge/formats/); absent in configs from before formats: the default. */
  format?: JudgeFormat;
  /** Programs the coder writes per description, MBR-exec keeping one (mbrExec.ts); absent in configs from before it: one. */
  coderSamples?: number;
}

export interface JudgeEpisodeInput {
  episodeId: string;
  /** Passed by the episode's after-episode hook; informational. */
  runId?: string;
  judgeModel?: string;
  coderModel?: string;
  /** Overrides (the run's `config.judge` and the defaults fill the rest). */
  config?: Partial<Omit<JudgeConfig, 'judgeModel' | 'coderModel'>>;
}

/** What the workflow needs to run the sandbox parts; small (ids, inputs, code). */
export interface JudgePlan {
  episodeId: string;
  methodId: string;
  config: JudgeConfig;
  /** The method (the original), run on held-out and observed inputs. */
  source: string;
  entryPoint: string;
  /** Inputs the agent observed: its calls (interactive) or its examples (in-context). */
  observedArgs: string[];
  heldoutGiven: string[];
  heldoutGenerated: string[];
  /** Generated inputs whose original raises count (typed inputs from the dataset); absent: older plans, they do not. */
  heldoutRaisingCounts?: boolean;
  /** The dataset excluded the method from code match (e.g. fewer than 2 distinct held-out outcomes): no code match. */
  codeMatchExcluded?: string;
  /** The episode ended without a usable description (failed episode): nothing to judge. */
  skip?: string;
}

export interface DescriptionVerdict {
  score: number | null;
  unparsable: boolean;
  rationale: string;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
  /** What the neutralisation removed from the candidate description (candidateText.ts); absent: nothing. */
  neutralised?: { lines: number; tags: number };
  /** How the score was obtained: the score token's distribution, sampled verdicts, or why it is unscorable. */
  scoreDetail?: ScoreDetail;
}

export interface GeneratedCode {
  code: string | null;
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
}

/** Code from the method's gold description (the contradiction check's control); noGold: the method has none. */
export interface GoldCode extends GeneratedCode {
  noGold?: boolean;
}

export interface JudgeEpisodeResult {
  episodeId: string;
  judgeModel: string;
  score: number | null;
  unparsable: boolean;
  codeMatch: number | null;
  statementCoverage: number | null;
  branchCoverage: number | null;
  contradictsObserved: boolean | null;
  skipped?: string;
}

export interface JudgeRunInput {
  runId: string;
  judgeModel: string;
  coderModel?: string;
  /** Re-judge episodes that already have a judgment by this judge (default: only the missing ones). */
  force?: boolean;
  /** Children in flight at once. */
  window?: number;
  config?: JudgeEpisodeInput['config'];
}

export interface JudgeRunResult {
  runId: string;
  judgeModel: string;
  judged: number;
  failed: number;
  skipped: number;
}
