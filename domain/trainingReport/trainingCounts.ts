// What a training run left out of its data and why (issue 23, "no silent truncation"): examples or rollouts
// whose requests were not in the ledger as the transcript says (not as served: never trained on a prompt
// that was not sent), those longer than max_length (dropped, never cut; the trainer refuses a job that
// would drop more than 1 %), and length-cut turns whose end-of-turn token is masked. Every SFT and GRPO
// summary and report shows these through this one function. Pure.

export interface TrainingCounts {
  /** Examples or rollouts handed to the trainer (after the not-as-served check). */
  given: number;
  /** Left out before training: their requests were not what the line would render (null: not counted then). */
  notAsServed: number | null;
  /** Dropped by the trainer: longer than max_length (null: a trainer before the count). */
  droppedTooLong: number | null;
  /** The longest one's tokens. */
  longestTokens: number | null;
  /** Assistant turns cut at max_tokens whose end-of-turn token was not trained. */
  lengthCutMasked: number | null;
  /** The limit the trainer applied (null: the trainer's default). */
  maxLength: number | null;
}

/** Share of `part` in `whole`, null when there is nothing to divide. */
export function shareOf(part: number | null, whole: number): number | null {
  return part === null || whole <= 0 ? null : part / whole;
}

/** The figures derived from the counts: what the data held, what was trained, and the two shares. */
export function countsFigures(c: TrainingCounts): {
  total: number;
  trained: number | null;
  notAsServedShare: number | null;
  tooLongShare: number | null;
} {
  const total = c.given + (c.notAsServed ?? 0);
  return {
    total,
    trained: c.droppedTooLong === null ? null : c.given - c.droppedTooLong,
    notAsServedShare: shareOf(c.notAsServed, total),
    tooLongShare: shareOf(c.droppedTooLong, c.given),
  };
}

const pct = (x: number | null) => (x === null ? '-' : `${(100 * x).toFixed(1)} %`);

/** Per-epoch (or per-run) counts summed; a count absent anywhere stays unknown (null). */
export function sumCounts(cs: readonly TrainingCounts[]): TrainingCounts | null {
  if (cs.length === 0) return null;
  const sum = (k: 'notAsServed' | 'droppedTooLong' | 'lengthCutMasked') => (cs.some((c) => c[k] === null) ? null : cs.reduce((a, c) => a + (c[k] ?? 0), 0));
  const longest = cs.map((c) => c.longestTokens).filter((x): x is number => x !== null);
  return {
    given: cs.reduce((a, c) => a + c.given, 0),
    notAsServed: sum('notAsServed'),
    droppedTooLong: sum('droppedTooLong'),
    longestTokens: longest.length > 0 ? Math.max(...longest) : null,
    lengthCutMasked: sum('lengthCutMasked'),
    maxLength: cs[0]!.maxLength,
  };
}

/**
 * One line for the terminal and the report, e.g. "not trained: 2 of 40 examples not as served (5.0 %); 1 of
 * 38 longer than max_length 8192 (2.6 %, longest 9001 tokens); 37 trained; 3 cut turns masked".
 */
export function countsLine(c: TrainingCounts, unit: 'example' | 'rollout'): string {
  const f = countsFigures(c);
  const n = (k: number | null) => (k === null ? 'not counted' : String(k));
  const limit = c.maxLength === null ? 'max_length (trainer default)' : `max_length ${c.maxLength}`;
  return (
    `not trained: ${n(c.notAsServed)} of ${f.total} ${unit}s not as served (${pct(f.notAsServedShare)}); ` +
    `${n(c.droppedTooLong)} of ${c.given} longer than ${limit} (${pct(f.tooLongShare)}${c.longestTokens === null ? '' : `, longest ${c.longestTokens} tokens`}); ` +
    `${f.trained === null ? '?' : f.trained} trained; ${n(c.lengthCutMasked)} cut turn(s) masked (end-of-turn token not trained)`
  );
}
