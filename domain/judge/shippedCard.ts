// A judge card shipped with the benchmark (datasets/<name>/judge-cards/): the rows a card was computed from,
// keyed by what makes a card valid elsewhere (the judge's and code writer's weights, the params they are sent,
// the prompt version, the dataset's content). `npm start` re-judges a sample of its methods and keeps it only
// when the sample agrees (the rule below, written before it was first measured); `calibrate judge` computes
// the whole card. Pure code: the file's schema, the key's comparison, the sample and the agreement rule.
import { z } from 'zod';
import type { JudgeFormat } from './judgePrompt';
import { ABOVE_MARGIN, CARD_RUNGS, type CardMethodRow, type CardRung, type ClassifierControl, JUDGE_MODES, type JudgeMode } from './card';

export const SHIPPED_CARD_KIND = 'pau-judge-card';
export const SHIPPED_CARD_VERSION = 1;

/** What a shipped card is valid for: a card computed here under an equal key would measure the same requests. */
export const shippedCardKeySchema = z
  .object({
    /** The registry names it was computed under (informative: the weights below are what must match). */
    judgeModel: z.string().min(1),
    coderModel: z.string().min(1),
    /** The weights' identity: `local:<sha256 of the GGUF>`, or `pau-scripted-mock:<policy>` (weightsIdentity). */
    judgeWeights: z.string().min(1),
    coderWeights: z.string().min(1),
    judgeParams: z.record(z.string(), z.unknown()),
    coderParams: z.record(z.string(), z.unknown()),
    promptVersion: z.string().min(1),
    dataset: z.string().min(1),
    /** The dataset's content hash (datasets.content_hash): every method, reference and probe the card read. */
    datasetContentHash: z.string().min(1),
    split: z.string().min(1),
  })
  .strict();
export type ShippedCardKey = z.infer<typeof shippedCardKeySchema>;

const rung = z.enum(CARD_RUNGS);
const score = z.number().min(1).max(5).nullable();
const scores = z.partialRecord(rung, score);

/** One method's row as the card workflow records it (CardMethodRow, with its classifier pair). */
export const shippedRowSchema = z
  .object({
    methodId: z.string().min(1),
    source: z.string().min(1),
    scores,
    codeMatch: z.partialRecord(rung, z.number().min(0).max(1).nullable()),
    nearMissChange: z.string().optional(),
    argmax: z.partialRecord(rung, z.number().int().min(1).max(5).nullable()).optional(),
    lowMass: z.array(rung).optional(),
    codeSamples: z.partialRecord(rung, z.object({ matches: z.array(z.number().min(0).max(1).nullable()), chosen: z.number().int().min(0) })).optional(),
    mode: z.enum(JUDGE_MODES).optional(),
    codeOnlyScores: scores.optional(),
    retestScores: scores.optional(),
    classifier: z.object({ n: z.number().int().min(0), correct: z.number().int().min(0), unparsable: z.number().int().min(0) }).optional(),
  })
  .strict();
export type ShippedRow = z.infer<typeof shippedRowSchema>;

export const shippedCardFileSchema = z
  .object({
    kind: z.literal(SHIPPED_CARD_KIND),
    version: z.literal(SHIPPED_CARD_VERSION),
    key: shippedCardKeySchema,
    /** When and where the rows were computed (a figure's date and machine). */
    computed: z.object({ at: z.string().min(1), machine: z.string().min(1), workflowId: z.string().nullable() }).strict(),
    /** The card's methods in its order (the `wrong` rung of each depends on the list). */
    rows: z.array(shippedRowSchema).min(2),
  })
  .strict()
  .superRefine((f, ctx) => {
    const seen = new Set<string>();
    f.rows.forEach((r, i) => {
      if (seen.has(r.methodId)) ctx.addIssue({ code: 'custom', path: ['rows', i, 'methodId'], message: `method ${r.methodId} appears twice` });
      seen.add(r.methodId);
    });
  });
export type ShippedCardFile = z.infer<typeof shippedCardFileSchema>;

/** The contradiction classifier's control summed over a card's rows (absent when no row has a pair). */
export function classifierControlOf(
  rows: readonly { classifier?: { n: number; correct: number; unparsable: number } | undefined }[],
): ClassifierControl | undefined {
  const cls = rows.flatMap((x) => (x.classifier ? [x.classifier] : []));
  if (cls.length === 0) return undefined;
  const n = cls.reduce((a, c) => a + c.n, 0);
  const correct = cls.reduce((a, c) => a + c.correct, 0);
  return { n, correct, accuracy: n === 0 ? null : correct / n, unparsable: cls.reduce((a, c) => a + c.unparsable, 0) };
}

const KEY_FIELDS = ['judgeWeights', 'coderWeights', 'judgeParams', 'coderParams', 'promptVersion', 'dataset', 'datasetContentHash', 'split'] as const;

/** Why a shipped card's key does not hold here: one line per field that differs (empty: it holds). Names may differ. */
export function keyMismatch(shipped: ShippedCardKey, here: ShippedCardKey): string[] {
  const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
  return KEY_FIELDS.flatMap((k) => (text(shipped[k]) === text(here[k]) ? [] : [`${k}: shipped ${text(shipped[k])}, here ${text(here[k])}`]));
}

/**
 * The rule a shipped card's sample is held to, fixed before the built-in judge's first verification was
 * measured (docs/judging.md, "The shipped card"). Every score the card's checks read (each rung with the
 * reference, each code-only rung) of the first `methods` methods is asked again here, anew. The sample agrees
 * when at least `minShareWithin` of them lie within the tolerance of the shipped score and none moves more
 * than ABOVE_MARGIN (the least difference the card counts as an ordering, so a larger move could flip a check).
 * The tolerance is `sdMultiple` times the card's own test–retest SD, never under `minTolerance`: the 1.5B's SD
 * is 0.047, its largest retest move 0.174, so 0.25 admits the judge's own noise and little more.
 */
export const SAMPLE_RULE = { methods: 3, sdMultiple: 4, minTolerance: 0.25, minShareWithin: 0.9, maxAbsDiff: ABOVE_MARGIN } as const;

/** The methods re-judged: the card's first ones (its list is round-robin over sources, so one per source). */
export function sampleMethodIds(f: Pick<ShippedCardFile, 'rows'>, n: number = SAMPLE_RULE.methods): string[] {
  return f.rows.slice(0, n).map((r) => r.methodId);
}

/** One score asked again: which rung, in which mode. */
export interface RescoredScore {
  rung: CardRung;
  mode?: JudgeMode;
  score: number | null;
}

export interface SampleAgreement {
  methods: string[];
  /** (method, rung, mode) scores compared. */
  pairs: number;
  within: number;
  /** Pairs where exactly one side has no score (counted outside the tolerance). */
  missing: number;
  maxAbsDiff: number | null;
  meanAbsDiff: number | null;
  tolerance: number;
  agrees: boolean;
  /** Why it does not agree (empty when it does). */
  why: string[];
}

/** The tolerance for a card whose test–retest SD is `sd` (null: not measured). */
export function sampleTolerance(sd: number | null | undefined): number {
  return Math.max(SAMPLE_RULE.minTolerance, SAMPLE_RULE.sdMultiple * (sd ?? 0));
}

/** The sample's scores against the shipped rows, by SAMPLE_RULE. */
export function sampleAgreement(
  rows: readonly Pick<CardMethodRow, 'methodId' | 'scores' | 'codeOnlyScores'>[],
  rescored: readonly { methodId: string; scores: readonly RescoredScore[] }[],
  retestSd: number | null | undefined,
): SampleAgreement {
  const tolerance = sampleTolerance(retestSd);
  const byId = new Map(rows.map((r) => [r.methodId, r]));
  const diffs: number[] = [];
  let missing = 0;
  let pairs = 0;
  for (const m of rescored) {
    const row = byId.get(m.methodId);
    for (const s of m.scores) {
      const shipped = s.mode === 'codeOnly' ? row?.codeOnlyScores?.[s.rung] : row?.scores[s.rung];
      if (shipped === undefined) continue; // the shipped card did not score it: nothing to compare
      pairs++;
      if (shipped === null && s.score === null) diffs.push(0);
      else if (shipped === null || s.score === null) missing++;
      else diffs.push(Math.abs(shipped - s.score));
    }
  }
  const within = diffs.filter((d) => d <= tolerance + 1e-9).length;
  const maxAbsDiff = diffs.length ? Math.max(...diffs) : null;
  const why: string[] = [];
  if (pairs === 0) why.push('no score of the sample was in the shipped card');
  else if (within / pairs < SAMPLE_RULE.minShareWithin)
    why.push(`${within} of ${pairs} scores within ${tolerance.toFixed(2)} of the shipped ones (needs ${Math.round(100 * SAMPLE_RULE.minShareWithin)}%)`);
  if (maxAbsDiff !== null && maxAbsDiff > SAMPLE_RULE.maxAbsDiff)
    why.push(`a score moved ${maxAbsDiff.toFixed(2)} (more than ${SAMPLE_RULE.maxAbsDiff}, enough to flip an ordering the card counts)`);
  return {
    methods: rescored.map((m) => m.methodId),
    pairs,
    within,
    missing,
    maxAbsDiff,
    meanAbsDiff: diffs.length ? diffs.reduce((a, b) => a + b, 0) / diffs.length : null,
    tolerance,
    agrees: why.length === 0,
    why,
  };
}

/** Where a stored card came from when it was not computed here: the shipped file and its sample's check. */
export interface ShippedProvenance {
  /** The file, relative to the repository. */
  file: string;
  fileSha256: string;
  /** When and where the shipped rows were computed. */
  computedAt: string;
  machine: string;
  sample: SampleAgreement;
  verifiedAt: string;
}

/** The card's line saying it was shipped and how its sample agreed. */
export function provenanceLine(p: ShippedProvenance): string {
  const s = p.sample;
  return `shipped with the benchmark (${p.file}, computed ${p.computedAt.slice(0, 10)} on ${p.machine}); verified here ${p.verifiedAt.slice(0, 10)} on ${s.methods.length} methods: ${s.within} of ${s.pairs} scores within ${s.tolerance.toFixed(2)}, largest move ${s.maxAbsDiff === null ? '-' : s.maxAbsDiff.toFixed(2)}`;
}

/** What `npm start` asks for: the shipped card of this judge and coder, checked on a sample here. */
export interface ShippedCardCheckInput {
  judgeModel: string;
  coderModel: string;
  dataset: string;
  split: string;
  format?: JudgeFormat;
  coderSamples?: number;
  /** Where to look for shipped cards (default datasets/<dataset>/judge-cards/; tests point elsewhere). */
  cardsDir?: string;
}

/** The check's plan when a shipped card's key holds here: what to re-judge, as the card asked it. */
export interface ShippedCardPlan {
  status: 'matches';
  /** The file (absolute) and its content's sha256: accepted only if unchanged when the sample is done. */
  file: string;
  fileSha256: string;
  /** The card's methods in its order, and the sample of them re-judged. */
  methodIds: string[];
  sample: string[];
  contrasts: Record<string, string | null>;
  judgeParams: Record<string, unknown>;
}

/**
 * The check's outcome: `none` (no file), `ignored` (a file, but its key does not hold here: why, per file),
 * `verified` (stored as this machine's card), `disagrees` (the sample did not agree: the caller computes the card).
 */
export type ShippedCardCheck =
  | { status: 'none' | 'ignored'; why: string[] }
  | { status: 'verified'; file: string; sample: SampleAgreement; judgeQualified: boolean; judgeQualifiedCodeOnly?: boolean; coderQualified: boolean }
  | { status: 'disagrees'; file: string; sample: SampleAgreement };

/** The check's outcome in a line or two (npm start, the CLI). */
export function shippedCheckLines(c: ShippedCardCheck): string[] {
  if (!('sample' in c)) {
    const label = c.status === 'none' ? 'absent' : 'ignored';
    return c.why.map((w) => `shipped judge card ${label}: ${w}`);
  }
  const s = c.sample;
  const figures = `${s.within} of ${s.pairs} scores of ${s.methods.length} methods within ${s.tolerance.toFixed(2)}, largest move ${s.maxAbsDiff === null ? '-' : s.maxAbsDiff.toFixed(2)}`;
  if (c.status === 'verified') return [`shipped judge card verified on a sample (${figures}): kept as this machine's card`];
  return [`shipped judge card NOT verified (${figures}): ${s.why.join('; ')}; the whole card is computed here`];
}
