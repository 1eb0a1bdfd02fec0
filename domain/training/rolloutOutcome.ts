// What each GRPO rollout contributes to its group (issue 23, item 5). Pure.
//
// - Judged: the outcome reward (judge score + weight x code match on the held-out inputs the agent never
//   saw, the headline's figure: code match on all of them pays for tabulating the calls the agent made).
// - Failed because of the policy (no description at the end, or a transcript that outgrew the model's
//   context): the minimum reward, and it stays in its group. Dropping it would hide exactly the behaviour the
//   update should push down, and would leave the group's mean to its successful siblings.
// - Not judged for a reason outside the policy (the episode failed on infrastructure after its activities'
//   retries, was cancelled, or its judge gave no score): its reward is unknown, and a group whose statistics
//   leave one rollout out is biased, so the whole group is skipped (not trained) and counted.

/** The rubric's lowest score (domain/judge/formats/rationale.ts RUBRIC: "Wrong or empty"). */
export const MIN_JUDGE_SCORE = 1;

/** The reward of a rollout that failed because of the policy: the lowest score and no code match. */
export const POLICY_FAILURE_REWARD = MIN_JUDGE_SCORE;

export type PolicyFailure = 'no_description' | 'context_overflow';
export type Unjudged = 'episode_failed' | 'cancelled' | 'not_judged' | 'unparsable_score';

/** The columns of one rollout episode that decide its reward. */
export interface RolloutOutcomeRow {
  episodeId: string;
  methodId: string;
  sample: number;
  status: string;
  endReason: string | null;
  /** The episode's error (status failed). */
  error: string | null;
  /** The episode ended with a final description (episodes.final_description non-empty). */
  hasDescription: boolean;
  judged: boolean;
  score: number | null;
  /**
   * Code match on the counted held-out inputs the agent never observed (judgments.diagnostics); null when
   * none is left or the method is excluded from code match: then no code-match reward.
   */
  codeMatchUnobserved: number | null;
}

export type RolloutVerdict =
  | { kind: 'judged'; reward: number }
  | { kind: 'policy_failure'; reward: number; reason: PolicyFailure }
  | { kind: 'unjudged'; reason: Unjudged };

/**
 * llama.cpp's 400 for a prompt longer than its slot ("the request exceeds the available context size",
 * type exceed_context_size_error) and the OpenAI-style wording: the transcript the policy wrote outgrew the
 * context, which a retry cannot fix.
 */
const CONTEXT_OVERFLOW = /exceeds? the available context size|exceed_context_size|maximum context length|context_length_exceeded/i;

export function isContextOverflow(error: string | null | undefined): boolean {
  return !!error && CONTEXT_OVERFLOW.test(error);
}

export function rolloutVerdict(r: RolloutOutcomeRow, codeMatchWeight: number): RolloutVerdict {
  if (r.status === 'failed') {
    return isContextOverflow(r.error)
      ? { kind: 'policy_failure', reward: POLICY_FAILURE_REWARD, reason: 'context_overflow' }
      : { kind: 'unjudged', reason: 'episode_failed' };
  }
  if (r.status !== 'completed') return { kind: 'unjudged', reason: 'cancelled' };
  // No description: the policy's failure whatever a judge made of the empty text.
  if (!r.hasDescription) return { kind: 'policy_failure', reward: POLICY_FAILURE_REWARD, reason: 'no_description' };
  if (!r.judged) return { kind: 'unjudged', reason: 'not_judged' };
  if (r.score === null) return { kind: 'unjudged', reason: 'unparsable_score' };
  return { kind: 'judged', reward: r.score + codeMatchWeight * (r.codeMatchUnobserved ?? 0) };
}

export interface RolloutGroupFigures {
  /** Rollouts that failed because of the policy (minimum reward, kept in their group), by reason. */
  policyFailures: number;
  policyFailureReasons: Partial<Record<PolicyFailure, number>>;
  /** Rollouts without a usable reward for reasons outside the policy, by reason. */
  unjudgedRollouts: number;
  unjudgedReasons: Partial<Record<Unjudged, number>>;
  /** Groups left out of the update because one of their rollouts was unjudged, and their rollouts. */
  skippedGroups: number;
  skippedRollouts: number;
}

export interface RolloutGroups {
  /** Per rollout, in input order: its verdict and whether its group trains. */
  rollouts: { row: RolloutOutcomeRow; verdict: RolloutVerdict; reward: number | null; trained: boolean }[];
  figures: RolloutGroupFigures;
}

/** The verdict of every rollout and which groups (methods) train. */
export function groupRollouts(rows: readonly RolloutOutcomeRow[], codeMatchWeight: number): RolloutGroups {
  const verdicts = rows.map((row) => ({ row, verdict: rolloutVerdict(row, codeMatchWeight) }));
  const skipped = new Set(verdicts.filter((v) => v.verdict.kind === 'unjudged').map((v) => v.row.methodId));
  const figures: RolloutGroupFigures = {
    policyFailures: 0,
    policyFailureReasons: {},
    unjudgedRollouts: 0,
    unjudgedReasons: {},
    skippedGroups: skipped.size,
    skippedRollouts: 0,
  };
  const rollouts = verdicts.map(({ row, verdict }) => {
    const trained = !skipped.has(row.methodId);
    if (!trained) figures.skippedRollouts++;
    if (verdict.kind === 'policy_failure') {
      figures.policyFailures++;
      figures.policyFailureReasons[verdict.reason] = (figures.policyFailureReasons[verdict.reason] ?? 0) + 1;
    } else if (verdict.kind === 'unjudged') {
      figures.unjudgedRollouts++;
      figures.unjudgedReasons[verdict.reason] = (figures.unjudgedReasons[verdict.reason] ?? 0) + 1;
    }
    return { row, verdict, reward: verdict.kind === 'unjudged' ? null : verdict.reward, trained };
  });
  return { rollouts, figures };
}

/**
 * A rollout of a trained group that still cannot become a trainer line: its transcript is gone
 * (`no_transcript`), a request is not in the ledger as the transcript says (`not_as_served`), or the policy
 * wrote no message (`no_policy_message`).
 */
export type LineDrop = 'no_transcript' | 'not_as_served' | 'no_policy_message';

export type RolloutLineCandidate<T> = { group: string; line: T } | { group: string; drop: LineDrop };

/**
 * The trainer lines of whole groups only. A rollout dropped alone would leave its siblings' advantages
 * computed without its reward (the same bias as an unjudged rollout), so one dropped rollout drops its
 * group: the culprit is counted under its reason, its siblings that had a line under `group_dropped`.
 */
export function wholeGroupLines<T>(candidates: readonly RolloutLineCandidate<T>[]): {
  lines: T[];
  dropped: Partial<Record<LineDrop | 'group_dropped', number>>;
} {
  const broken = new Set(candidates.filter((c) => 'drop' in c).map((c) => c.group));
  const dropped: Partial<Record<LineDrop | 'group_dropped', number>> = {};
  const lines: T[] = [];
  for (const c of candidates) {
    if ('drop' in c) dropped[c.drop] = (dropped[c.drop] ?? 0) + 1;
    else if (broken.has(c.group)) dropped.group_dropped = (dropped.group_dropped ?? 0) + 1;
    else lines.push(c.line);
  }
  return { lines, dropped };
}
