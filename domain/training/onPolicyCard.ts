// The on-policy critic card (docs/training.md, "The on-policy critic card"): every critic is scored on the
// rollouts of the policy being trained, against what each step revealed when run. The rollouts are a GRPO
// epoch's (the same methods, seeds and budgets: a GRPO run with the same fields gets them from the model-call
// cache), recorded once; each critic then rates their steps twice, with its own privileged information and with
// another method's, and is scored by
// - agreement: the AUROC of its ratings against the execution label "the step ruled out at least one
//   alternative still standing" (the execution critic's `ruledOut` > 0);
// - privilege used: how much its ratings move when the privileged information is another method's (a critic
//   whose ratings do not move reads the transcript only: a free rule);
// - predictive validity: within each group (one method's rollouts), Spearman's rho between a rollout's summed
//   step ratings and its code match on unseen inputs, averaged over the groups whose code match has spread;
// - the exact-repeat sanity rung: a repeated step rated at or below a new step of the same rollout.
// The execution critic and the free rule (criticCard.ts, freeRuleScore) are scored by the same measures, side by
// side. Pure code: the critics, the stored ratings, the measures, the checks and the card's text.
import { z } from 'zod';
import { canonicalJson, sha256Hex } from '../common/hash';
import { documentSchema } from '../common/jsonDocument';
import type { CardCheck } from '../judge/card';
import { auroc } from '../stats/auroc';
import { spearmanRho } from '../stats/spearman';
import { type CriticCardStatus, checkText, STEP_CLASSES, type StepClass } from './criticCard';
import type { CriticFormat } from './criticPrompt';
import { criticFormat } from './criticFormats';
import { EXEC_CRITIC, EXEC_CRITIC_VERSION } from './execCritic';
import type { GrpoConfig } from './grpo';
import { type RolloutOutcomeRow, rolloutVerdict } from './rolloutOutcome';

/** The name the free rule goes by on the card (not a model; not accepted by --critic). */
export const FREE_RULE = 'free-rule';
/** The free rule's version: bump when freeRuleScore changes. */
export const FREE_RULE_VERSION = 'free-rule-v1';

/** A critic the card scores: the execution critic, the free rule, or a model in one of the critic's formats. */
export type OnPolicyCritic = { kind: 'exec' } | { kind: 'rule' } | { kind: 'model'; model: string; format: CriticFormat };

export function criticNameOf(c: OnPolicyCritic): string {
  return c.kind === 'exec' ? EXEC_CRITIC : c.kind === 'rule' ? FREE_RULE : c.model;
}

/** How the card names a critic: `exec`, `free-rule`, `local/qwen2.5-coder-1.5b (verify)`. */
export function criticLabelOf(c: OnPolicyCritic): string {
  return c.kind === 'model' ? `${c.model} (${c.format})` : criticNameOf(c);
}

export function criticVersionOf(c: OnPolicyCritic): string {
  return c.kind === 'exec' ? EXEC_CRITIC_VERSION : c.kind === 'rule' ? FREE_RULE_VERSION : criticFormat(c.format).promptVersion;
}

export function criticParamsOf(c: OnPolicyCritic): Record<string, unknown> {
  return c.kind === 'model' ? criticFormat(c.format).params : {};
}

/**
 * The critics of a card: the execution critic (its ratings are also the labels) and the free rule always,
 * then every named model in every format asked for, each once, in the order given.
 */
export function onPolicyCritics(names: readonly string[], formats: readonly CriticFormat[]): OnPolicyCritic[] {
  const out: OnPolicyCritic[] = [{ kind: 'exec' }, { kind: 'rule' }];
  for (const model of new Set(names.filter((n) => n !== EXEC_CRITIC))) for (const format of new Set(formats)) out.push({ kind: 'model', model, format });
  return out;
}

/**
 * Whose privileged information each method's steps are also rated with: the next method of the card's list
 * (the last takes the first's), so every method lends and borrows once. None with fewer than 2 methods.
 */
export function swapPartners(methodIds: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  if (methodIds.length < 2) return out;
  for (const [i, m] of methodIds.entries()) out.set(m, methodIds[(i + 1) % methodIds.length]!);
  return out;
}

/** One rated step as one critic rated it (a step the GRPO critic rates: it made a call and did not submit). */
export interface OnPolicyStepRating {
  idx: number;
  /** With its own privileged information, in [0, 1]; null: unrated (`unrated` says why). */
  own: number | null;
  /** With the swap partner's (another method's gold description; the execution critic: its code). */
  swapped: number | null;
  unrated?: string;
  /** The execution critic: the alternatives the step ruled out (the label's source); null when unrated. */
  ruledOut?: number | null;
  /** The free rule: the step's class (null: no call was classed). */
  class?: StepClass | null;
}

/** One rollout as one critic rated it (stored per episode in the critic's card row while the pass runs). */
export interface OnPolicyRolloutRatings {
  episodeId: string;
  methodId: string;
  /** The method whose privileged information `swapped` was rated with; null: none (a card of one method). */
  swapMethodId: string | null;
  steps: OnPolicyStepRating[];
  /** Wall time of this rollout's rating. */
  ms: number;
}

/** What the card knows of a rollout apart from any critic: its code match and each rated step's label and class. */
export interface OnPolicyRolloutFacts {
  episodeId: string;
  methodId: string;
  /** Code match on the inputs the rollout never saw; null: none measured (the rollout was not judged). */
  codeMatch: number | null;
  steps: { idx: number; label: boolean | null; unlabelled?: string; class: StepClass | null }[];
}

/**
 * A rollout's facts: its rated steps (the free rule's row, else the execution critic's), each labelled by the
 * execution critic (null when it left the step unrated or has no row: the reason kept) and classed by the free
 * rule. Null when neither rated the rollout.
 */
export function rolloutFacts(x: {
  episodeId: string;
  methodId: string;
  codeMatch: number | null;
  exec: OnPolicyRolloutRatings | undefined;
  rule: OnPolicyRolloutRatings | undefined;
}): OnPolicyRolloutFacts | null {
  const base = x.rule ?? x.exec;
  if (!base) return null;
  const exec = new Map((x.exec?.steps ?? []).map((s) => [s.idx, s]));
  const rule = new Map((x.rule?.steps ?? []).map((s) => [s.idx, s]));
  return {
    episodeId: x.episodeId,
    methodId: x.methodId,
    codeMatch: x.codeMatch,
    steps: base.steps.map((s) => {
      const e = exec.get(s.idx);
      const ruled = e && e.own !== null ? (e.ruledOut ?? null) : null;
      return {
        idx: s.idx,
        label: ruled === null ? null : ruled > 0,
        ...(ruled === null ? { unlabelled: e ? (e.unrated ?? 'no execution rating') : 'not rated by the execution critic' } : {}),
        class: rule.get(s.idx)?.class ?? null,
      };
    }),
  };
}

/**
 * A rollout's code match for predictive validity: on the inputs it never saw, as its reward counts it (a rollout
 * the policy failed, e.g. without a description, 0); null when it has none (not judged for a reason outside the
 * policy, or no unseen input left).
 */
export function rolloutCodeMatch(r: RolloutOutcomeRow): number | null {
  const v = rolloutVerdict(r, 1);
  if (v.kind === 'policy_failure') return 0;
  return v.kind === 'judged' ? r.codeMatchUnobserved : null;
}

/** A rating moves when it changes by at least this much: one point of the rubric's 0-10 scale. */
export const PRIVILEGE_CHANGE = 0.1;

export interface OnPolicyMeasures {
  rollouts: number;
  /** Rated steps in all; those the critic left unrated, and why; those without an execution label, and why. */
  steps: number;
  unrated: number;
  unratedReasons: Record<string, number>;
  unlabelled: number;
  unlabelledReasons: Record<string, number>;
  /** Steps both rated and labelled, split by label, and the AUROC over them. */
  positives: number;
  negatives: number;
  auroc: number | null;
  /** Steps rated both ways; the mean |own − swapped|; the share that moved by PRIVILEGE_CHANGE. */
  privilegePairs: number;
  privilegeMeanShift: number | null;
  privilegeChanged: number | null;
  /** Groups whose code match has spread (rho measured) and those without (skipped, counted); the mean rho. */
  groups: number;
  flatGroups: number;
  rho: number | null;
  /** (repeated step, new step) pairs within a rollout, and the share where the repeat is rated at or below the new step. */
  repeatPairs: number;
  repeatAtOrBelow: number | null;
  meanRating: number | null;
  /** Mean rating by the free rule's step class. */
  meanByClass: Record<StepClass, number | null>;
}

const mean = (xs: readonly number[]) => (xs.length === 0 ? null : xs.reduce((a, x) => a + x, 0) / xs.length);
const count = (reasons: Record<string, number>, why: string) => {
  const k = why.slice(0, 200);
  reasons[k] = (reasons[k] ?? 0) + 1;
};

/**
 * A critic's measures on the card's rollouts. A rollout the critic has no row for counts its steps as
 * unrated. A rollout's summed rating (predictive validity) adds its rated steps' ratings, an unrated one
 * adding 0, as the step return the trainer computes does; a group is a method's rollouts with a code match,
 * and one whose code match has no spread (all equal, or fewer than 2) is skipped and counted; within a group
 * with spread, a critic whose sums are all equal has rho 0 (it orders nothing).
 */
export function onPolicyMeasures(facts: readonly OnPolicyRolloutFacts[], ratings: ReadonlyMap<string, OnPolicyRolloutRatings>): OnPolicyMeasures {
  const unratedReasons: Record<string, number> = {};
  const unlabelledReasons: Record<string, number> = {};
  const scored: { rating: number; label: boolean }[] = [];
  const shifts: number[] = [];
  const rated: number[] = [];
  const byClass: Record<StepClass, number[]> = { new: [], repeated: [], uninformative: [] };
  let steps = 0;
  let unrated = 0;
  let unlabelled = 0;
  let repeatPairs = 0;
  let repeatOk = 0;
  const sums = new Map<string, number>();
  for (const f of facts) {
    const row = ratings.get(f.episodeId);
    const mine = new Map((row?.steps ?? []).map((s) => [s.idx, s]));
    let sum = 0;
    const own = new Map<number, number>();
    for (const s of f.steps) {
      steps++;
      const r = mine.get(s.idx);
      const value = r?.own ?? null;
      if (value === null) {
        unrated++;
        count(unratedReasons, r ? (r.unrated ?? 'no rating in the answer') : 'not rated');
      } else {
        sum += value;
        own.set(s.idx, value);
        rated.push(value);
        if (s.class) byClass[s.class].push(value);
      }
      if (s.label === null) {
        unlabelled++;
        count(unlabelledReasons, s.unlabelled ?? 'no execution rating');
      } else if (value !== null) scored.push({ rating: value, label: s.label });
      if (value !== null && r?.swapped !== null && r?.swapped !== undefined) shifts.push(Math.abs(value - r.swapped));
    }
    sums.set(f.episodeId, sum);
    const ofClass = (k: StepClass) => f.steps.filter((s) => s.class === k && own.has(s.idx)).map((s) => own.get(s.idx)!);
    for (const rep of ofClass('repeated'))
      for (const neu of ofClass('new')) {
        repeatPairs++;
        if (rep <= neu + 1e-9) repeatOk++;
      }
  }
  let groups = 0;
  let flatGroups = 0;
  const rhos: number[] = [];
  for (const methodId of [...new Set(facts.map((f) => f.methodId))]) {
    const members = facts.filter((f) => f.methodId === methodId && f.codeMatch !== null);
    const cm = members.map((f) => f.codeMatch!);
    if (members.length < 2 || Math.max(...cm) === Math.min(...cm)) {
      flatGroups++;
      continue;
    }
    groups++;
    rhos.push(
      spearmanRho(
        members.map((f) => sums.get(f.episodeId) ?? 0),
        cm,
      ) ?? 0,
    );
  }
  const positives = scored.filter((s) => s.label).length;
  return {
    rollouts: facts.length,
    steps,
    unrated,
    unratedReasons,
    unlabelled,
    unlabelledReasons,
    positives,
    negatives: scored.length - positives,
    auroc: auroc(
      scored.map((s) => s.rating),
      scored.map((s) => s.label),
    ),
    privilegePairs: shifts.length,
    privilegeMeanShift: mean(shifts),
    privilegeChanged: shifts.length === 0 ? null : shifts.filter((d) => d >= PRIVILEGE_CHANGE - 1e-9).length / shifts.length,
    groups,
    flatGroups,
    rho: mean(rhos),
    repeatPairs,
    repeatAtOrBelow: repeatPairs === 0 ? null : repeatOk / repeatPairs,
    meanRating: mean(rated),
    meanByClass: { new: mean(byClass.new), repeated: mean(byClass.repeated), uninformative: mean(byClass.uninformative) },
  };
}

export interface OnPolicyThresholds {
  /** Agreement with the execution label. */
  auroc: number;
  /** Share of steps whose rating moves with another method's privileged information. */
  privilegeShare: number;
  /** Mean within-group rho of summed ratings with code match (and above the free rule's). */
  rho: number;
  /** Groups with spread in code match, the fewest the rho may rest on. */
  minGroups: number;
  /** Share of (repeated, new) pairs with the repeat at or below. */
  repeatSanity: number;
  /** Share of rated steps with a rating. */
  rated: number;
}

/**
 * Set before any on-policy card was measured (docs/training.md, "The on-policy critic card", says why each):
 * AUROC 0.70, the usual floor of acceptable discrimination, about 5 standard errors above chance on the ~240
 * labelled steps of 20 methods x 4 rollouts; privilege 25 % of steps moved (a critic that reads the gold
 * description must rate at least one step in four differently when it is another method's); rho 0.20 over at
 * least 8 groups with spread, and above the free rule's (a critic must predict the outcome better than the
 * transcript's classes do for free); 95 % of exact repeats at or below a new step (the one ordering every
 * sensible critic gets right); 90 % of steps rated (an unrated step gives no reward).
 */
export const DEFAULT_ON_POLICY_THRESHOLDS: OnPolicyThresholds = { auroc: 0.7, privilegeShare: 0.25, rho: 0.2, minGroups: 8, repeatSanity: 0.95, rated: 0.9 };

/** A critic's checks; `ruleRho`: the free rule's rho on the same rollouts (the validity it must beat). */
export function onPolicyChecks(m: OnPolicyMeasures, ruleRho: number | null, t: OnPolicyThresholds = DEFAULT_ON_POLICY_THRESHOLDS): CardCheck[] {
  const pct = (x: number) => `${Math.round(100 * x)}%`;
  const check = (name: string, value: number | null, threshold: string, pass: (v: number) => boolean): CardCheck => ({
    name,
    value,
    threshold,
    pass: value !== null && pass(value),
    applies: 'judge',
  });
  const ge = (name: string, value: number | null, min: number, fmt: (x: number) => string) => check(name, value, `>= ${fmt(min)}`, (v) => v >= min - 1e-9);
  const rated = m.steps === 0 ? null : (m.steps - m.unrated) / m.steps;
  return [
    ge('agreement: AUROC of the ratings against "the step ruled out an alternative"', m.auroc, t.auroc, (x) => x.toFixed(2)),
    ge(`privilege used: steps rated ${PRIVILEGE_CHANGE} or more apart with another method's information (share)`, m.privilegeChanged, t.privilegeShare, pct),
    ge('predictive validity: mean within-group rho of summed ratings with code match', m.rho, t.rho, (x) => x.toFixed(2)),
    check(
      'predictive validity above the free rule (rho minus its rho)',
      m.rho !== null && ruleRho !== null ? m.rho - ruleRho : null,
      '> 0.00',
      (v) => v > 1e-9,
    ),
    ge('groups with spread in code match (rho measured on)', m.groups, t.minGroups, String),
    ge('exact repeat rated at or below a new step (share of pairs)', m.repeatAtOrBelow, t.repeatSanity, pct),
    ge('rated steps with a rating (share)', rated, t.rated, pct),
  ];
}

/** A critic's verdict on the card: its measures, its checks (the free rule's rho the one to beat) and whether all pass. */
export interface OnPolicyVerdict {
  measures: OnPolicyMeasures;
  checks: CardCheck[];
  qualified: boolean;
}

/**
 * Every critic's verdict on the same rollouts, by critic label: `ratings` holds each critic's rows by episode,
 * the free rule's under `ruleLabel` (its rho is what the others must beat; absent: not measured, so that
 * check fails for all).
 */
export function scoreOnPolicyCritics(
  facts: readonly OnPolicyRolloutFacts[],
  ratings: ReadonlyMap<string, ReadonlyMap<string, OnPolicyRolloutRatings>>,
  ruleLabel: string,
  t: OnPolicyThresholds = DEFAULT_ON_POLICY_THRESHOLDS,
): Map<string, OnPolicyVerdict> {
  const measured = new Map([...ratings].map(([label, rows]) => [label, onPolicyMeasures(facts, rows)]));
  const ruleRho = measured.get(ruleLabel)?.rho ?? null;
  return new Map(
    [...measured].map(([label, measures]) => {
      const checks = onPolicyChecks(measures, ruleRho, t);
      return [label, { measures, checks, qualified: checks.every((c) => c.pass) }];
    }),
  );
}

/** The rollouts a card is on: the GRPO fields that decide a first epoch's methods and rollouts. */
export type OnPolicyRolloutConfig = Pick<
  GrpoConfig,
  | 'base'
  | 'judgeModel'
  | 'dataset'
  | 'split'
  | 'methodsPerEpoch'
  | 'group'
  | 'rolloutWindow'
  | 'budgets'
  | 'temperature'
  | 'sampling'
  | 'maxTokens'
  | 'seed'
  | 'methodIds'
  | 'sandbox'
>;

/** The runs.config of a card's rollout run (kind critic-card), checked at its envelope. */
export const onPolicyRolloutConfigSchema = documentSchema<OnPolicyRolloutConfig>({
  base: z.string(),
  judgeModel: z.string(),
  dataset: z.string(),
  split: z.string(),
  methodsPerEpoch: z.number(),
  group: z.number(),
  seed: z.number(),
});

/** The run the card's rollouts are recorded under: one per rollout config, so every card on them shares them. */
export function onPolicyRunId(config: OnPolicyRolloutConfig): string {
  const { rolloutWindow: _window, ...rest } = config;
  return `critic-card-${sha256Hex(canonicalJson(rest)).slice(0, 12)}`;
}

export interface OnPolicyCardKey {
  /** `exec`, `free-rule` or the model. */
  critic: string;
  format: CriticFormat | null;
  criticParams: Record<string, unknown>;
  promptVersion: string;
  policy: string;
  dataset: string;
  split: string;
  /** The run the rollouts are recorded under (kind critic-card). */
  runId: string;
}

export function onPolicyCardKey(c: OnPolicyCritic, runId: string, config: OnPolicyRolloutConfig): OnPolicyCardKey {
  return {
    critic: criticNameOf(c),
    format: c.kind === 'model' ? c.format : null,
    criticParams: criticParamsOf(c),
    promptVersion: criticVersionOf(c),
    policy: config.base,
    dataset: config.dataset,
    split: config.split,
    runId,
  };
}

export interface OnPolicyCriticCard extends OnPolicyCardKey {
  cardKey: string;
  label: string;
  methods: number;
  group: number;
  measures: OnPolicyMeasures;
  checks: CardCheck[];
  qualified: boolean;
  thresholds: OnPolicyThresholds;
  /** Wall time of the pass that rated the rollouts (null: not known). */
  passMs: number | null;
  computedAt: string;
  workflowId: string | null;
}

/** What `pau calibrate critic --on-policy` starts (criticCardWorkflow's input on this path). */
export interface OnPolicyCardInput {
  onPolicy: true;
  runId: string;
  config: OnPolicyRolloutConfig;
  critics: OnPolicyCritic[];
  /** Rollouts rated at once per critic. */
  window?: number;
  /** Rate every rollout again (the rollouts themselves are kept). */
  force?: boolean;
  thresholds?: Partial<OnPolicyThresholds>;
}

/** What the card's workflow returns: every critic's card (without its rollouts) and the rollouts' figures. */
export interface OnPolicyCardResult {
  onPolicy: true;
  runId: string;
  methods: string[];
  rollouts: number;
  completed: number;
  /** Rollouts recorded before this run of the card (reused). */
  reused: number;
  rolloutsMs: number;
  cards: OnPolicyCriticCard[];
}

export function isOnPolicyCardInput(x: object): x is OnPolicyCardInput {
  return 'onPolicy' in x && x.onPolicy === true;
}

/** One card computation at a time per (rollouts, critics). */
export function onPolicyCardWorkflowId(runId: string, critics: readonly OnPolicyCritic[]): string {
  return `critic-card/on-policy/${runId}/${sha256Hex(canonicalJson(critics.map(criticLabelOf))).slice(0, 8)}`;
}

/** The command that computes a critic's on-policy card (what a GRPO report prints when there is none). */
export function onPolicyCardCommand(critic: string, format: CriticFormat, policy: string, dataset: string): string {
  const fmt = critic === EXEC_CRITIC ? '' : criticFormat(format).flag;
  return `npm run pau -- calibrate critic --on-policy --policy ${policy} --critic ${critic}${fmt} --dataset ${dataset}`;
}

const f2 = (x: number | null) => (x === null ? '-' : x.toFixed(2));
const pct = (x: number | null) => (x === null ? '-' : `${Math.round(100 * x)}%`);
const reasonText = (r: Record<string, number>) =>
  Object.entries(r)
    .map(([why, n]) => `${n}: ${why}`)
    .join('; ');

/** `12.3 s`, `4 min 05 s`. */
export function durationText(ms: number | null): string {
  if (ms === null) return '-';
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

/** The card's one-line verdict. */
export function onPolicyTitle(card: OnPolicyCriticCard): string {
  return `critic card (on the policy's rollouts): critic ${card.label} ${card.qualified ? 'QUALIFIED' : 'NOT QUALIFIED'} (policy ${card.policy}, ${card.dataset}/${card.split}, ${card.methods} methods x ${card.group} rollouts, ${card.measures.rollouts} rated; run ${card.runId}; ${card.promptVersion}; ${card.computedAt.slice(0, 10)})`;
}

/** One critic's card as lines of text (the CLI and the GRPO report print it). */
export function onPolicyCardLines(card: OnPolicyCriticCard): string[] {
  const m = card.measures;
  return [
    onPolicyTitle(card),
    ...card.checks.map((c) => `  ${c.pass ? 'pass' : 'FAIL'}  ${c.name}: ${checkText(c)} (needs ${c.threshold})`),
    `  ${m.steps} rated steps of ${m.rollouts} rollouts: ${m.positives} ruled out an alternative, ${m.negatives} did not; mean |change| with another method's information ${f2(m.privilegeMeanShift)} over ${m.privilegePairs} steps; ${m.groups} groups with spread in code match, ${m.flatGroups} without (skipped)`,
    `  mean rating by class: ${STEP_CLASSES.map((k) => `${k} ${f2(m.meanByClass[k])}`).join(', ')}; rating pass ${durationText(card.passMs)}`,
    ...(m.unrated > 0 ? [`  unrated steps ${m.unrated} (${reasonText(m.unratedReasons)})`] : []),
    ...(m.unlabelled > 0 ? [`  steps without an execution label ${m.unlabelled} (${reasonText(m.unlabelledReasons)})`] : []),
  ];
}

/** The critics side by side: one row each (the CLI's table). */
export function onPolicyTable(cards: readonly OnPolicyCriticCard[]): { headers: string[]; rows: string[][] } {
  return {
    headers: ['critic', 'pass time', 'AUROC', 'privilege moved / mean |Δ|', 'rho (groups)', 'repeat <= new', 'rated', 'verdict'],
    rows: cards.map((c) => {
      const m = c.measures;
      const rated = m.steps === 0 ? null : (m.steps - m.unrated) / m.steps;
      return [
        c.label,
        durationText(c.passMs),
        f2(m.auroc),
        `${pct(m.privilegeChanged)} / ${f2(m.privilegeMeanShift)}`,
        `${f2(m.rho)} (${m.groups})`,
        pct(m.repeatAtOrBelow),
        pct(rated),
        c.qualified ? 'QUALIFIED' : 'not qualified',
      ];
    }),
  };
}

/** What a GRPO report knows about its critic: its on-policy card when one exists, else the recorded-episode card's status. */
export type RunCriticStatus = CriticCardStatus | { status: 'on-policy'; card: OnPolicyCriticCard };
