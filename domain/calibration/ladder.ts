// The description ladder: a judge model scores, per method, four descriptions whose
// order is known — the gold one, a partial one (its first sentence, or its first half when it has one
// sentence), a wrong one (another method's gold) and an empty one — and we measure how often its scores
// keep that order. A judge that cannot rank these cannot rank agents. Pure code.
import { z } from 'zod';
import { recordOf } from '../common/recordOf';
import { partialDescription } from '../judge/cardRungs';
import { kendallTauB } from '../stats/kendallTau';

export const RUNGS = ['gold', 'partial', 'wrong', 'empty'] as const;
export type Rung = (typeof RUNGS)[number];

export interface LadderMethod {
  id: string;
  goldDescription: string;
}

/**
 * The four rungs of each method. The wrong description is the gold of the next method in the list whose
 * gold differs (deterministic: the same list gives the same ladder); methods without a gold are skipped.
 */
export function buildLadders(ms: readonly LadderMethod[]): { methodId: string; wrongFrom: string; descriptions: Record<Rung, string> }[] {
  const usable = ms.filter((m) => m.goldDescription.trim().length > 0);
  if (usable.length < 2) return [];
  return usable.map((m, i) => {
    let j = (i + 1) % usable.length;
    while (j !== i && usable[j]!.goldDescription.trim() === m.goldDescription.trim()) j = (j + 1) % usable.length;
    return {
      methodId: m.id,
      wrongFrom: usable[j]!.id,
      descriptions: { gold: m.goldDescription, partial: partialDescription(m.goldDescription), wrong: usable[j]!.goldDescription, empty: '' },
    };
  });
}

export type LadderScores = Record<Rung, number | null>;

export interface LadderSummary {
  methods: number;
  /** Methods with a parsable score on every rung (the rest are counted in `incomplete`). */
  scored: number;
  incomplete: number;
  /** Share of scored methods where gold >= partial >= wrong >= empty. */
  monotone: number | null;
  /** ... and strictly gold > wrong (the least a judge must tell apart). */
  goldAboveWrong: number | null;
  /** Mean over scored methods of Kendall's tau-b between the rung order and the scores (null taus skipped). */
  meanTau: number | null;
  /** Mean score per rung over scored methods. */
  meanByRung: Record<Rung, number | null>;
}

const EXPECTED = [4, 3, 2, 1]; // gold, partial, wrong, empty

export function summarizeLadder(rows: readonly LadderScores[]): LadderSummary {
  const complete = rows.filter((r) => RUNGS.every((k) => r[k] !== null)).map((r) => RUNGS.map((k) => r[k] as number));
  const n = complete.length;
  const share = (pred: (s: number[]) => boolean) => (n === 0 ? null : complete.filter(pred).length / n);
  const taus = complete.map((s) => kendallTauB(EXPECTED, s)).filter((t): t is number => t !== null);
  const meanByRung = recordOf(RUNGS, (_, i) => (n === 0 ? null : complete.reduce((a, s) => a + s[i]!, 0) / n));
  return {
    methods: rows.length,
    scored: n,
    incomplete: rows.length - n,
    monotone: share((s) => s[0]! >= s[1]! && s[1]! >= s[2]! && s[2]! >= s[3]!),
    goldAboveWrong: share((s) => s[0]! > s[2]!),
    meanTau: taus.length === 0 ? null : taus.reduce((a, t) => a + t, 0) / taus.length,
    meanByRung,
  };
}

/** A ladder run (`pau calibrate ladder`): the judge model scores the first `methods` methods with a gold description. */
export const ladderRunInputSchema = z.object({
  judgeModel: z.string().min(1),
  dataset: z.string().min(1),
  split: z.enum(['train', 'validation', 'test']),
  methods: z.number().int().min(2),
});
export type LadderRunInput = z.infer<typeof ladderRunInputSchema>;

/** One method's scores and the judge's replies, rung by rung. */
export interface LadderRow extends LadderScores {
  methodId: string;
  rationales: Record<Rung, string>;
}

/** Judgments done of all the run's (methods × rungs). */
export interface LadderProgress {
  done: number;
  total: number;
}

/** One workflow per CLI run: the judge calls go through the llm_calls cache, so a rerun costs nothing. */
export function ladderWorkflowId(input: LadderRunInput, runId: string): string {
  return `calibrate-ladder/${input.judgeModel}/${input.dataset}/${input.split}/${runId}`;
}
