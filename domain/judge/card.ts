// The judge card: what qualifies a judge model and a code-writer model before any score they
// produce is shown as a measurement. One card per (judge, coder, their request params, prompt version,
// dataset split); computed by judgeCardWorkflow, stored in `judge_cards`, shown at the top of reports and
// by `npm start`. Pure code: the types, the thresholds and the verdict.

import type { JudgeFormat } from './judgePrompt';
import type { ShippedProvenance } from './shippedCard';

/** Bump when the judge's or the coder's prompt changes: a card measured on other prompts does not qualify. */
export const JUDGE_PROMPT_VERSION = 'judge-v4';

/**
 * Bump when what a card measures changes, so a card stored before it is not read as testing what it did not.
 * 2: the gating rungs are scored a second time with the reference hidden (the code-only mode).
 */
export const CARD_VERSION = 2;

/**
 * The version a card is keyed by: the judge's prompts and format, the card's own version, and the code
 * writer's procedure when it samples k > 1 programs per description (MBR-exec, domain/judge/mbrExec.ts),
 * which changes every code match.
 */
export function judgePromptVersion(format: JudgeFormat, coderSamples = 1): string {
  return `${JUDGE_PROMPT_VERSION}/${format}/card${CARD_VERSION}${coderSamples > 1 ? `/coder-mbr${coderSamples}` : ''}`;
}

/**
 * How the judge sees a method: beside the reference description (`reference`: HumanEval, MBPP, CodeAlpaca) or
 * against the code alone (`codeOnly`: CRUXEval, which has none). The card qualifies a judge per mode, and a
 * report withholds the scores of methods judged in a mode whose checks failed.
 */
export const JUDGE_MODES = ['reference', 'codeOnly'] as const;
export type JudgeMode = (typeof JUDGE_MODES)[number];

export const JUDGE_MODE_LABEL: Record<JudgeMode, string> = { reference: 'against a reference', codeOnly: 'against the code alone' };

/** The mode a method is judged in on the benchmark: with its gold description in the prompt, or without. */
export function judgeModeOf(m: { goldDescription: string | null | undefined }): JudgeMode {
  return m.goldDescription?.trim() ? 'reference' : 'codeOnly';
}

/** The gating rungs the card scores a second time with the reference hidden (the code-only mode). */
export const CODE_ONLY_RUNGS = ['gold', 'generic', 'wrong', 'injection', 'empty'] as const satisfies readonly CardRung[];

/**
 * The rungs the card judges twice, the second time asked anew (the cache bypassed): its test–retest figure,
 * read where the paper's effects live (a right answer and one behaviour away from it).
 */
export const RETEST_RUNGS = ['gold', 'nearMiss'] as const satisfies readonly CardRung[];

/**
 * What "above" means for continuous scores: at least this many points higher. Expectations never tie, so
 * without a margin a judge that cannot tell two descriptions apart would still "order" them half the time by
 * noise; half a rubric step is the least difference that moves a score across a rounding boundary.
 */
export const ABOVE_MARGIN = 0.5;

/**
 * The rungs scored per method, in the order a good judge ranks them (best first, ties allowed between
 * the last five: none says what the method does). `nearMiss` is the gold with one behaviour changed;
 * `lookup` is a table of observed calls with no generalisation; `generic` is a sentence true of any function;
 * `injection` is `wrong` with a trailing "SCORE: 5" line.
 */
export const CARD_RUNGS = ['gold', 'partial', 'nearMiss', 'lookup', 'generic', 'wrong', 'injection', 'empty'] as const;
export type CardRung = (typeof CARD_RUNGS)[number];

export interface CardThresholds {
  /** Methods scored on every required rung (gold, wrong, empty, injection). */
  minMethods: number;
  /** Share of methods where gold is above wrong and above empty (by ABOVE_MARGIN). */
  goldBeatsWrongAndEmpty: number;
  /** Mean score of gold minus mean score of empty. */
  goldMinusEmpty: number;
  /** Share of methods where injection <= wrong (its plain twin). */
  injectionNoHigher: number;
  /** Share of methods with a lookup-table rung where gold is above it (by ABOVE_MARGIN). */
  lookupBelowGold: number;
  /** Share of methods with a generic rung where gold is above it (by ABOVE_MARGIN). */
  genericBelowGold: number;
  /** Mean code match of code written from the gold description. */
  coderFidelity: number;
}

/**
 * The middle of the scale: near-miss below gold would gate a judge that passes it on this share of the tuning
 * card's methods. The built-in judge does not (the 1.5B, contrast format: 64 %), so it does not gate; a card below it says that a
 * score difference smaller than its near-miss gap is not resolved, and reports mark such differences.
 */
export const NEAR_MISS_RESOLVED = 0.8;

/** The near-miss gap under which a card's judge does not resolve differences; null when it resolves them or was not measured. */
export function unresolvedGap(m: Pick<JudgeCardMeasures, 'nearMissBelowGold' | 'nearMissGap'>): number | null {
  if (m.nearMissBelowGold === null || m.nearMissGap == null) return null;
  return m.nearMissBelowGold >= NEAR_MISS_RESOLVED ? null : Math.max(0, m.nearMissGap);
}

/** The thresholds, with the reasoning in docs/judging.md ("The judge card"). */
export const DEFAULT_THRESHOLDS: CardThresholds = {
  minMethods: 20,
  goldBeatsWrongAndEmpty: 0.9,
  goldMinusEmpty: 2,
  injectionNoHigher: 0.95,
  lookupBelowGold: 0.9,
  genericBelowGold: 0.9,
  coderFidelity: 0.6,
};

/** One method of the card: the judge's score per rung, code match of code written from some rungs. */
export interface CardMethodRow {
  methodId: string;
  source: string;
  scores: Partial<Record<CardRung, number | null>>;
  /** Code match (on held-out inputs) of code the coder wrote from that rung's description; null: excluded / none. */
  codeMatch: Partial<Record<CardRung, number | null>>;
  /** What the near-miss changed ("'less' -> 'greater'"); absent when no change applied. */
  nearMissChange?: string;
  /** The judge's most likely digit per rung (beside the expectation in `scores`); absent in older cards. */
  argmax?: Partial<Record<CardRung, number | null>>;
  /** Rungs whose score token put under half its mass on the five digits. */
  lowMass?: CardRung[];
  /** With k > 1 programs per rung (MBR-exec): each program's code match, and which one `codeMatch` kept. */
  codeSamples?: Partial<Record<CardRung, { matches: (number | null)[]; chosen: number }>>;
  /** The mode `scores` were judged in (the method's benchmark mode); absent in cards before modes: `reference`. */
  mode?: JudgeMode;
  /** A `reference` method's gating rungs judged again with the reference hidden (CODE_ONLY_RUNGS). */
  codeOnlyScores?: Partial<Record<CardRung, number | null>>;
  /** The RETEST_RUNGS judged a second time, asked anew: beside `scores`, the test–retest pairs. */
  retestScores?: Partial<Record<CardRung, number | null>>;
}

/** How far the same judge moves on the same description asked again (the card's RETEST_RUNGS). */
export interface RetestMeasures {
  /** (method, rung) pairs with both scores. */
  pairs: number;
  /** The within-description standard deviation: sqrt(mean((a - b)^2) / 2). */
  sd: number | null;
  /** The largest |a - b| of a pair. */
  maxAbsDiff: number | null;
  /** Pairs whose two scores differ at all. */
  changed: number;
}

export interface ClassifierControl {
  /** Labelled items (consistent descriptions and descriptions with one injected contradiction). */
  n: number;
  correct: number;
  accuracy: number | null;
  unparsable: number;
}

export interface CardCheck {
  name: string;
  value: number | null;
  /** `>= 0.9` and the like. */
  threshold: string;
  pass: boolean;
  /** Which model the check qualifies. */
  applies: 'judge' | 'coder';
  /** A judge check's mode (absent: `reference`, as in cards before modes). */
  mode?: JudgeMode;
}

/** What the card measured of the judge in the code-only mode (the gating rungs with the reference hidden). */
export interface CodeOnlyMeasures {
  /** Methods with a parsable code-only score on gold, wrong, empty and injection. */
  scored: number;
  meanByRung: Partial<Record<CardRung, number | null>>;
  goldBeatsWrongAndEmpty: number | null;
  goldMinusEmpty: number | null;
  injectionNoHigher: number | null;
  genericBelowGold: number | null;
}

export interface JudgeCardMeasures {
  methods: number;
  /** Methods per source. */
  sources: Record<string, number>;
  /** Methods with a parsable score on gold, wrong, empty and injection. */
  scored: number;
  unparsable: number;
  meanByRung: Record<CardRung, number | null>;
  /** Share of methods where gold is above wrong and above empty by ABOVE_MARGIN. */
  goldBeatsWrongAndEmpty: number | null;
  /** The same share read on the argmax digits (strictly above), shown beside it; absent in older cards. */
  goldBeatsWrongAndEmptyArgmax?: number | null;
  goldMinusEmpty: number | null;
  /** Share of methods with a near-miss scored below gold. */
  nearMissBelowGold: number | null;
  /** Mean of gold minus near-miss over methods with both: the least difference the judge tells apart; absent in older cards. */
  nearMissGap?: number | null;
  /** Share of methods with the lookup table scored below gold. */
  lookupBelowGold: number | null;
  /** Share of methods with the generic description scored below gold (by ABOVE_MARGIN); absent in older cards. */
  genericBelowGold?: number | null;
  injectionNoHigher: number | null;
  /** Share of methods where gold >= partial >= wrong >= empty ("monotone ladder"). */
  monotone: number | null;
  /** Kendall's tau-b between the judge's scores and code match over every (method, rung) with both. */
  scoreCodeMatchTau: number | null;
  scoreCodeMatchPairs: number;
  /** Mean code match of code from the gold description (the ceiling of the code-match column). */
  coderFidelity: number | null;
  /** Mean code match of code from an empty description (name and signature alone): the floor. */
  emptyFloor: number | null;
  /**
   * With k > 1 programs per description (MBR-exec): fidelity and floor of the greedy program alone (what
   * k = 1 gives) and of the best of the k (the ceiling no selection can pass), beside the kept program's above.
   */
  coderSamples?: { k: number; fidelityGreedy: number | null; fidelityBestOfK: number | null; floorGreedy: number | null };
  classifier?: ClassifierControl;
  /** The same gating measures with the reference hidden; absent in cards before modes. */
  codeOnly?: CodeOnlyMeasures;
  /** Test–retest of the judge; absent in cards before it. */
  retest?: RetestMeasures;
}

export interface JudgeCardKey {
  judgeModel: string;
  coderModel: string;
  judgeParams: Record<string, unknown>;
  coderParams: Record<string, unknown>;
  promptVersion: string;
  dataset: string;
  split: string;
}

export interface JudgeCard extends JudgeCardKey {
  /** Stable hash of the key (domain/judge/cardKey.ts). */
  cardKey: string;
  measures: JudgeCardMeasures;
  checks: CardCheck[];
  /** The judge passed its checks in the reference mode. */
  judgeQualified: boolean;
  /** The judge passed its checks in the code-only mode; absent: the card did not test it (cards before modes). */
  judgeQualifiedCodeOnly?: boolean;
  coderQualified: boolean;
  thresholds: CardThresholds;
  rows: CardMethodRow[];
  computedAt: string;
  /** The workflow that computed it. */
  workflowId: string | null;
  /** Present when the rows were shipped with the benchmark and verified here on a sample (domain/judge/shippedCard.ts). */
  shipped?: ShippedProvenance;
}

/**
 * What a report or `npm start` knows about the judge of a run: the card, or why there is none. `qualified`:
 * the judge passed (code match is shown only where `card.coderQualified` too); `unqualified`: the judge
 * failed a check; `missing`: no card for this (judge, coder, params, prompt, dataset) yet, so its scores
 * are not measurements either. `forced`: the run was started with an unqualified judge on purpose.
 */
export type JudgeCardStatus =
  | { status: 'qualified'; card: JudgeCard }
  | { status: 'unqualified'; card: JudgeCard; failed: string[]; forced: boolean }
  | { status: 'missing'; judgeModel: string; coderModel: string; command: string; forced: boolean };

/** The checks of a card's measures against thresholds; each names the model it qualifies. */
/** A check that passes at `min` or above; `fmt` writes the threshold in the value's unit. */
function atLeast(
  name: string,
  value: number | null,
  min: number,
  applies: CardCheck['applies'],
  fmt: (x: number) => string = (x) => x.toFixed(2),
  mode?: JudgeMode,
): CardCheck {
  return { name, value, threshold: `>= ${fmt(min)}`, pass: value !== null && value >= min, applies, ...(mode ? { mode } : {}) };
}
const pct = (x: number) => `${Math.round(100 * x)}%`;

export function cardChecks(m: JudgeCardMeasures, t: CardThresholds = DEFAULT_THRESHOLDS): CardCheck[] {
  return [
    atLeast('methods scored on gold, wrong, empty and injection', m.scored, t.minMethods, 'judge', (x) => String(x)),
    atLeast('gold above wrong and empty (share of methods)', m.goldBeatsWrongAndEmpty, t.goldBeatsWrongAndEmpty, 'judge', pct),
    atLeast('mean score gold - empty', m.goldMinusEmpty, t.goldMinusEmpty, 'judge'),
    atLeast('injected "SCORE: 5" no higher than its plain twin (share)', m.injectionNoHigher, t.injectionNoHigher, 'judge', pct),
    // Only where a method has observed calls to tabulate (a dataset without probe outputs has no lookup rung).
    ...(m.lookupBelowGold === null
      ? []
      : [atLeast('gold above the lookup table of observed calls (share)', m.lookupBelowGold, t.lookupBelowGold, 'judge', pct)]),
    // Only on cards that score a generic rung (cards stored before it have none).
    ...(m.genericBelowGold == null
      ? []
      : [atLeast('gold above a description true of any function (share)', m.genericBelowGold, t.genericBelowGold, 'judge', pct)]),
    atLeast('coder fidelity: code match of code from the gold description', m.coderFidelity, t.coderFidelity, 'coder', pct),
    ...(m.codeOnly ? codeOnlyChecks(m.codeOnly, t) : []),
  ];
}

/**
 * The code-only mode's checks: the reference mode's judge gates, with the same thresholds (set before the
 * first code-only card was measured), read on the scores the judge gave with the reference hidden.
 */
function codeOnlyChecks(c: CodeOnlyMeasures, t: CardThresholds): CardCheck[] {
  const ge = (name: string, value: number | null, min: number, fmt?: (x: number) => string) =>
    atLeast(`code-only: ${name}`, value, min, 'judge', fmt, 'codeOnly');
  return [
    ge('methods scored on gold, wrong, empty and injection', c.scored, t.minMethods, (x) => String(x)),
    ge('gold above wrong and empty (share of methods)', c.goldBeatsWrongAndEmpty, t.goldBeatsWrongAndEmpty, pct),
    ge('mean score gold - empty', c.goldMinusEmpty, t.goldMinusEmpty),
    ge('injected "SCORE: 5" no higher than its plain twin (share)', c.injectionNoHigher, t.injectionNoHigher, pct),
    ...(c.genericBelowGold === null ? [] : [ge('gold above a description true of any function (share)', c.genericBelowGold, t.genericBelowGold, pct)]),
  ];
}

/** A judge check's mode (checks stored before modes are the reference mode's). */
export const checkMode = (c: Pick<CardCheck, 'mode'>): JudgeMode => c.mode ?? 'reference';

/**
 * Qualification from the checks: each model passes every check that applies to it; the judge per mode
 * (`judgeQualifiedCodeOnly` absent when no check tested that mode).
 */
export function qualification(checks: readonly CardCheck[]): {
  judgeQualified: boolean;
  judgeQualifiedCodeOnly?: boolean;
  coderQualified: boolean;
  failed: string[];
} {
  const judge = (mode: JudgeMode) => checks.filter((c) => c.applies === 'judge' && checkMode(c) === mode);
  const codeOnly = judge('codeOnly');
  return {
    judgeQualified: judge('reference').every((c) => c.pass),
    ...(codeOnly.length > 0 ? { judgeQualifiedCodeOnly: codeOnly.every((c) => c.pass) } : {}),
    coderQualified: checks.filter((c) => c.applies === 'coder').every((c) => c.pass),
    failed: checks.filter((c) => !c.pass).map(failedCheckText),
  };
}

/**
 * The modes whose judge checks a card passed. A card before modes tested only the reference mode; the
 * code-only mode is then not qualified (untested, not failed: `modeWithheldWhy` says which).
 */
export function qualifiedModes(card: Pick<JudgeCard, 'judgeQualified' | 'judgeQualifiedCodeOnly'>): JudgeMode[] {
  return [...(card.judgeQualified ? (['reference'] as const) : []), ...(card.judgeQualifiedCodeOnly ? (['codeOnly'] as const) : [])];
}

/** Why a card does not qualify its judge in `mode`: the failed checks of that mode, or that it never tested it. */
export function modeWithheldWhy(card: Pick<JudgeCard, 'checks' | 'judgeQualifiedCodeOnly'>, mode: JudgeMode): string {
  if (mode === 'codeOnly' && card.judgeQualifiedCodeOnly === undefined)
    return 'the card did not test the code-only mode (it was computed before it had code-only rungs)';
  return card.checks
    .filter((c) => c.applies === 'judge' && checkMode(c) === mode && !c.pass)
    .map(failedCheckText)
    .join('; ');
}

/** A failed check as reports and the CLI say it: `name: value (needs threshold)`. */
export function failedCheckText(c: CardCheck): string {
  return `${c.name}: ${checkValue(c)} (needs ${c.threshold})`;
}

/** A check's value in its threshold's unit (a share as a percentage). */
export function checkValue(c: Pick<CardCheck, 'value' | 'threshold'>): string {
  if (c.value === null) return 'not measured';
  if (c.threshold.includes('%')) return `${Math.round(100 * c.value)}%`;
  return Number.isInteger(c.value) ? String(c.value) : c.value.toFixed(2);
}

/** A card workflow's progress (its query): methods recorded, `resumed` of them by an earlier run, and in all. */
export interface JudgeCardProgress {
  done: number;
  resumed: number;
  total: number;
}

/** What `pau calibrate judge` starts (judgeCardWorkflow's input). */
export interface JudgeCardInput {
  judgeModel: string;
  coderModel: string;
  dataset: string;
  /** Cards are measured on the validation split by default: never on the methods a benchmark reports. */
  split: string;
  /** Methods to score (round-robin over sources). */
  methods: number;
  /** Methods in flight at once. */
  window?: number;
  /** Recompute even when a completed card with this key exists. */
  force?: boolean;
  /** Code near-miss and wrong too (domain/judge/cardRungs.ts CODED_RUNGS): more tau-b pairs, twice the coder's time. */
  codeAllRungs?: boolean;
  thresholds?: Partial<CardThresholds>;
  /** Request-param overrides (as a run's `judge.judgeParams` / `judge.coderParams`). */
  judgeParams?: Record<string, unknown>;
  coderParams?: Record<string, unknown>;
  /** The judge's prompt format (default DEFAULT_JUDGE_FORMAT). */
  format?: JudgeFormat;
  /** Skip the first N methods of the round-robin order: a confirming card on methods the tuning card did not use. */
  skip?: number;
  /** Programs the coder samples per description, MBR-exec keeping one (domain/judge/mbrExec.ts; default DEFAULT_CODER_SAMPLES). */
  coderSamples?: number;
}

export interface JudgeCardPlan {
  cardKey: string;
  /** The card's methods in order (every method's `wrong` rung depends on the list). */
  methodIds: string[];
  /** Methods already recorded (a resumed or rerun card skips them). */
  recorded: string[];
  /** The params actually sent. */
  judgeParams: Record<string, unknown>;
  coderParams: Record<string, unknown>;
  /** Each method's contrast method (the contrast format; activities/judge/contrastMethod.ts); absent in plans from before it. */
  contrasts?: Record<string, string | null>;
  /** Programs the coder samples per coded rung (MBR-exec); absent in plans from before it (one). */
  coderSamples?: number;
}

/** What the workflow needs to run one method of the card. */
export interface CardMethodPlan {
  methodId: string;
  source: string;
  nearMissChange?: string;
  rungs: CardRung[];
  /** The mode the method is judged in on the benchmark (its `rungs` are scored so); absent in plans before modes. */
  mode?: JudgeMode;
  /** Rungs scored a second time with the reference hidden (a `reference` method's gating rungs). */
  codeOnlyRungs?: CardRung[];
  /** Rungs judged again, asked anew (RETEST_RUNGS the method has). */
  retestRungs?: CardRung[];
  /** Rungs the coder writes code from. */
  coded: CardRung[];
  /** The original's held-out run; null when the method is excluded from code match. */
  heldout: { source: string; entryPoint: string; calls: string[]; nGiven: number; raisingCounts: boolean } | null;
  /** Whether the method has a contradiction pair for the classifier control. */
  classifier: boolean;
}
