// The description ladder (issue 12 point 2): a judge model scores, per method, four descriptions whose
// order is known — the gold one, a partial one (its first sentence, or its first half when it has one
// sentence), a wrong one (another method's gold) and an empty one — and we measure how often its scores
// keep that order. A judge that cannot rank these cannot rank agents. Pure code.
import { z } from 'zod';
import { recordOf } from '../common/recordOf';

export const RUNGS = ['gold', 'partial', 'wrong', 'empty'] as const;
export type Rung = (typeof RUNGS)[number];

export interface LadderMethod {
  id: string;
  goldDescription: string;
}

/** The first sentence of a description, or its first half (by words) when it is one sentence. */
export function partialDescription(gold: string): string {
  const text = gold.trim().replace(/\s+/g, ' ');
  const m = /^(.+?[.!?])\s+\S/.exec(text);
  if (m?.[1] && m[1].length < text.length) return m[1];
  const words = text.split(' ');
  return words.slice(0, Math.max(1, Math.floor(words.length / 2))).join(' ');
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

/**
 * Kendall's tau-b between two score lists (ties handled: 1 = same order, -1 = reversed, 0 = none; null
 * when either side is all ties, where no order is defined).
 */
export function kendallTauB(x: readonly number[], y: readonly number[]): number | null {
  let concordant = 0;
  let discordant = 0;
  let tiesX = 0;
  let tiesY = 0;
  for (let i = 0; i < x.length; i++)
    for (let j = i + 1; j < x.length; j++) {
      const dx = Math.sign(x[i]! - x[j]!);
      const dy = Math.sign(y[i]! - y[j]!);
      if (dx === 0 && dy === 0) continue;
      if (dx === 0) tiesX++;
      else if (dy === 0) tiesY++;
      else if (dx === dy) concordant++;
      else discordant++;
    }
  const denom = Math.sqrt((concordant + discordant + tiesX) * (concordant + discordant + tiesY));
  return denom === 0 ? null : (concordant - discordant) / denom;
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
