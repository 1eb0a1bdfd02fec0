// The critic card: what qualifies an AAC-GRPO critic model before its step rewards steer an update. On
// recorded benchmark episodes, each rated step is classed by what it found (new behaviour, a repeat of an
// earlier call, or an uninformative call) and the critic's rewards are checked to order them: a step that found
// something is worth more than one that did not. One card per (critic, its request params, critic prompt
// version, dataset split, run or any run); computed by criticCardWorkflow, stored in `critic_cards`, shown in
// every GRPO report (docs/training.md, "The critic card"). Pure code: the classes, thresholds and verdict.
import { parseArgs } from '../python/literal';
import { inputKey, shapeKey, shapeOf } from '../inputs/generator';
import type { CardCheck } from '../judge/card';
import type { CriticCall, CriticFormat } from './criticPrompt';
import { criticFormat } from './criticFormats';

/**
 * What a step found, judged from its calls and the calls before it in the same episode (steps in order,
 * calls in order within a step). Per executed call, against every earlier executed call:
 * - `repeated`: its arguments are an earlier call's (the same `inputKey`: the normalised literal text);
 * - `uninformative`: new arguments, but of an input class already probed (the arguments' type shape,
 *   `inputClass`) AND an outcome already seen (`outcomeKey`: the value's repr, or the exception's type): a
 *   call whose every visible part the episode had already shown;
 * - `new`: anything else: an outcome never seen before or an input class never probed (found new behaviour).
 * A rejected call (not run: malformed, over budget) showed no behaviour and is not classed. A step is `new`
 * when any of its calls is new, `repeated` when every classed call is a repeat, otherwise `uninformative`;
 * a step with no classed call has no class (and takes no part in the card).
 */
export const STEP_CLASSES = ['new', 'repeated', 'uninformative'] as const;
export type StepClass = (typeof STEP_CLASSES)[number];

/** The argument text of a critic call `f(1, 2)` (what the policy passed), or the whole text when it has no call form. */
export function argumentsOf(call: string): string {
  const m = /^[^(]*\(([\s\S]*)\)\s*$/.exec(call.trim());
  return m ? m[1]! : call;
}

/** The input class of an argument text: the type shape of each argument (`int,list[str],k=str`); the text itself when it does not parse. */
export function inputClass(args: string): string {
  const a = parseArgs(args);
  if (!a) return `?${args.replace(/\s+/g, '')}`;
  return [...a.args.map((v) => shapeKey(shapeOf(v))), ...a.kwargs.map(([k, v]) => `${k}=${shapeKey(shapeOf(v))}`)].join(',');
}

/** What a call showed: `=repr` for a value, `!Type` for an exception (its message aside); null when it did not run. */
export function outcomeKey(c: Pick<CriticCall, 'status' | 'observation'>): string | null {
  if (c.status === 'rejected') return null;
  if (c.status === 'ran') return `=${c.observation}`;
  return `!${c.observation.split(':')[0]!.trim()}`;
}

export type CallClass = StepClass | null;

/** The class of each call of `step` given the calls before it (and the step's own earlier calls). */
export function classifyCalls(before: readonly CriticCall[], step: readonly CriticCall[]): CallClass[] {
  const keys = new Set<string>();
  const classes = new Set<string>();
  const outcomes = new Set<string>();
  const see = (c: CriticCall) => {
    const o = outcomeKey(c);
    if (o === null) return;
    const args = argumentsOf(c.call);
    keys.add(inputKey(args));
    classes.add(inputClass(args));
    outcomes.add(o);
  };
  before.forEach(see);
  return step.map((c) => {
    const o = outcomeKey(c);
    if (o === null) return null;
    const args = argumentsOf(c.call);
    const cls: StepClass = keys.has(inputKey(args)) ? 'repeated' : classes.has(inputClass(args)) && outcomes.has(o) ? 'uninformative' : 'new';
    see(c);
    return cls;
  });
}

/** A step's class from its calls' classes (see STEP_CLASSES); null when no call was classed. */
export function stepClass(calls: readonly CallClass[]): StepClass | null {
  const classed = calls.filter((c): c is StepClass => c !== null);
  if (classed.length === 0) return null;
  if (classed.includes('new')) return 'new';
  return classed.every((c) => c === 'repeated') ? 'repeated' : 'uninformative';
}

/**
 * The free rule: a step's worth read from the transcript alone, with no model and no gold description, per
 * call of the step (classed by classifyCalls against the calls before it): a rejected call 0, a repeat 0, an
 * uninformative call 2, a new call that raised 6, a new call that returned a value 9; the step's score (0-10)
 * is the mean over its calls, rounded (0 for a step without calls). The scripted critic answers with it
 * (scriptedCritic.ts) and the on-policy card scores it beside the critics (onPolicyCard.ts): a critic that
 * does no better than this rule needs neither its model nor its privilege.
 */
export function freeRuleScore(before: readonly CriticCall[], step: readonly CriticCall[]): number {
  if (step.length === 0) return 0;
  const classes = classifyCalls(before, step);
  const each = step.map((c, i): number => {
    const k = classes[i];
    if (k === null || c.status === 'rejected') return 0;
    // a call that reveals nothing earns nothing (the step return sums uncentred rewards: trainer core_algos.py)
    if (k === 'repeated') return 0;
    if (k === 'uninformative') return 2;
    return c.status === 'raised' ? 6 : 9;
  });
  return Math.round(each.reduce((a, b) => a + b, 0) / each.length);
}

/**
 * What "above" means: the new step's reward at least this much higher (rewards are n/10 for an integer n).
 * Two points of the critic's 0-10 scale: one point can be the rounding of the same judgement (a 7 and a 6 for
 * two probes it finds equally "middle"); two cannot be rounding alone. The critic prompt's own bands (new
 * probe 8-10, repeat 0-3) are five points apart, so a critic that follows them clears it with room.
 */
export const CRITIC_ABOVE_MARGIN = 0.2;

export interface CriticCardThresholds {
  /** Episodes with at least one (new, repeated or uninformative) pair both rated. */
  minEpisodes: number;
  /** Share of pairs ordered (new above the other by CRITIC_ABOVE_MARGIN), each episode weighted equally. */
  pairsOrdered: number;
  /** Mean reward of new steps minus the mean reward of repeated and uninformative ones. */
  meanGap: number;
  /** Share of rated steps whose answer carried a parsable reward. */
  parsable: number;
}

/**
 * Why these: 20 episodes, as the judge card's 20 methods: at 20, a critic ordering pairs by coin flip reaches
 * 80 % in under 1 % of cards (binomial, P(X >= 16 of 20) = 0.6 %). 80 % of pairs, below the judge card's 90 %:
 * the classes are read from the calls alone, and a critic that sees the gold description may rightly rate an
 * "uninformative" call of a boundary the description names in the middle band; 80 % leaves room for those
 * and none for a critic that cannot tell a repeat from a probe. A mean gap of 0.2, the margin: on average the
 * reward-to-go a new step adds must be a whole margin above a step that found nothing. 90 % parsable: an
 * unparsable answer gives its step no reward (null), so a critic that often misses the format steers little.
 */
export const DEFAULT_CRITIC_THRESHOLDS: CriticCardThresholds = { minEpisodes: 20, pairsOrdered: 0.8, meanGap: 0.2, parsable: 0.9 };

/** One rated step of a card episode: its class and the critic's reward (null: unparsable). */
export interface CriticCardStep {
  idx: number;
  class: StepClass;
  reward: number | null;
  /** Appended by the card: a repeat of the episode's first executed call with its recorded outcome. */
  constructed?: boolean;
}

export interface CriticCardEpisode {
  episodeId: string;
  methodId: string;
  runId: string;
  /** Whether the card appended a repeat step (the episode recorded no repeated or uninformative step). */
  constructed: boolean;
  steps: CriticCardStep[];
}

export interface CriticCardMeasures {
  episodes: number;
  /** Episodes the card appended a repeat to (their pair is constructed, not recorded). */
  constructed: number;
  /** Episodes with at least one pair both rated. */
  paired: number;
  pairs: number;
  steps: Record<StepClass, number>;
  unparsable: number;
  parsableShare: number | null;
  meanByClass: Record<StepClass, number | null>;
  /** Share of pairs ordered by the margin, each episode's share weighted equally. */
  pairsOrdered: number | null;
  /** The same for new against repeated, and new against uninformative, alone. */
  newAboveRepeated: number | null;
  newAboveUninformative: number | null;
  /** Mean reward of new steps minus that of repeated and uninformative ones. */
  meanGap: number | null;
}

export interface CriticCardKey {
  criticModel: string;
  criticParams: Record<string, unknown>;
  promptVersion: string;
  dataset: string;
  split: string;
  /** The benchmark run the episodes come from; null: any benchmark run on the split. */
  runId: string | null;
}

export interface CriticCard extends CriticCardKey {
  cardKey: string;
  measures: CriticCardMeasures;
  checks: CardCheck[];
  qualified: boolean;
  thresholds: CriticCardThresholds;
  episodes: CriticCardEpisode[];
  computedAt: string;
  workflowId: string | null;
}

/** What a GRPO report knows about its critic: the card, or the command that computes it. */
export type CriticCardStatus =
  | { status: 'qualified'; card: CriticCard }
  | { status: 'unqualified'; card: CriticCard; failed: string[] }
  | { status: 'missing'; criticModel: string; command: string };

const mean = (xs: readonly number[]) => (xs.length === 0 ? null : xs.reduce((a, x) => a + x, 0) / xs.length);
const num = (x: number | null): x is number => x !== null && Number.isFinite(x);
/** `a` above `b` by the margin, on the critic's integer scale (n/10 values are not exact in binary). */
export const criticAbove = (a: number, b: number) => Math.round(10 * a) - Math.round(10 * b) >= Math.round(10 * CRITIC_ABOVE_MARGIN);

/** Per episode, the share of its (new, other) pairs that are ordered; null for an episode without a rated pair. */
function episodeShare(e: CriticCardEpisode, others: readonly StepClass[]): { share: number; pairs: number } | null {
  const news = e.steps.filter((s) => s.class === 'new' && num(s.reward));
  const rest = e.steps.filter((s) => others.includes(s.class) && num(s.reward));
  const n = news.length * rest.length;
  if (n === 0) return null;
  let ok = 0;
  for (const a of news) for (const b of rest) if (criticAbove(a.reward!, b.reward!)) ok++;
  return { share: ok / n, pairs: n };
}

export function criticCardMeasures(episodes: readonly CriticCardEpisode[]): CriticCardMeasures {
  const all = episodes.flatMap((e) => e.steps);
  const by = (k: StepClass) => all.filter((s) => s.class === k);
  const shares = (others: readonly StepClass[]) => episodes.map((e) => episodeShare(e, others)).filter((x) => x !== null);
  const both = shares(['repeated', 'uninformative']);
  const meanShare = (xs: readonly { share: number }[]) => mean(xs.map((x) => x.share));
  const rewards = (xs: readonly CriticCardStep[]) => xs.map((s) => s.reward).filter(num);
  const newMean = mean(rewards(by('new')));
  const otherMean = mean(rewards([...by('repeated'), ...by('uninformative')]));
  const unparsable = all.filter((s) => s.reward === null).length;
  return {
    episodes: episodes.length,
    constructed: episodes.filter((e) => e.constructed).length,
    paired: both.length,
    pairs: both.reduce((a, x) => a + x.pairs, 0),
    steps: { new: by('new').length, repeated: by('repeated').length, uninformative: by('uninformative').length },
    unparsable,
    parsableShare: all.length === 0 ? null : (all.length - unparsable) / all.length,
    meanByClass: { new: newMean, repeated: mean(rewards(by('repeated'))), uninformative: mean(rewards(by('uninformative'))) },
    pairsOrdered: meanShare(both),
    newAboveRepeated: meanShare(shares(['repeated'])),
    newAboveUninformative: meanShare(shares(['uninformative'])),
    meanGap: newMean !== null && otherMean !== null ? newMean - otherMean : null,
  };
}

/** The checks of a critic card (each qualifies the critic: `applies` is `judge`, the model that rates). */
export function criticCardChecks(m: CriticCardMeasures, t: CriticCardThresholds = DEFAULT_CRITIC_THRESHOLDS): CardCheck[] {
  const pct = (x: number) => `${Math.round(100 * x)}%`;
  const ge = (name: string, value: number | null, min: number, fmt: (x: number) => string): CardCheck => ({
    name,
    value,
    threshold: `>= ${fmt(min)}`,
    pass: value !== null && value >= min - 1e-9,
    applies: 'judge',
  });
  return [
    ge('episodes with a rated pair (new step, repeated or uninformative step)', m.paired, t.minEpisodes, String),
    ge(`new step above the other by ${CRITIC_ABOVE_MARGIN} (share of pairs, episodes weighted equally)`, m.pairsOrdered, t.pairsOrdered, pct),
    ge('mean reward new - repeated/uninformative', m.meanGap, t.meanGap, (x) => x.toFixed(2)),
    ge('rated steps with a parsable reward (share)', m.parsableShare, t.parsable, pct),
  ];
}

export function buildCriticCard(
  key: CriticCardKey & { cardKey: string },
  episodes: readonly CriticCardEpisode[],
  opts: { thresholds?: CriticCardThresholds; computedAt: string; workflowId: string | null },
): CriticCard {
  const thresholds = opts.thresholds ?? DEFAULT_CRITIC_THRESHOLDS;
  const measures = criticCardMeasures(episodes);
  const checks = criticCardChecks(measures, thresholds);
  return {
    ...key,
    measures,
    checks,
    qualified: checks.every((c) => c.pass),
    thresholds,
    episodes: [...episodes],
    computedAt: opts.computedAt,
    workflowId: opts.workflowId,
  };
}

/** A check's value in its threshold's unit (a gap with two decimals, like its threshold). */
export function checkText(c: CardCheck): string {
  if (c.value === null) return 'not measured';
  if (c.threshold.includes('%')) return `${Math.round(100 * c.value)}%`;
  return c.threshold.includes('.') ? c.value.toFixed(2) : String(c.value);
}

/** The failed checks, named with their values (a status's `failed`). */
export function failedCriticChecks(card: Pick<CriticCard, 'checks'>): string[] {
  return card.checks.filter((c) => !c.pass).map((c) => `${c.name}: ${checkText(c)} (needs ${c.threshold})`);
}

/** The card as lines of text (the CLI and the GRPO report's text print it). */
export function criticCardLines(card: Omit<CriticCard, 'episodes'>): string[] {
  const m = card.measures;
  const f2 = (x: number | null) => (x === null ? '-' : x.toFixed(2));
  const pct = (x: number | null) => (x === null ? '-' : `${Math.round(100 * x)}%`);
  const source = card.runId ? `run ${card.runId}` : 'benchmark runs';
  return [
    `critic card: critic ${card.criticModel} ${card.qualified ? 'QUALIFIED' : 'NOT QUALIFIED'} (${card.dataset}/${card.split}, ${source}, ${m.episodes} episodes, ${m.pairs} pairs; prompt ${card.promptVersion}; ${card.computedAt.slice(0, 10)})`,
    ...card.checks.map((c) => `  ${c.pass ? 'pass' : 'FAIL'}  ${c.name}: ${checkText(c)} (needs ${c.threshold})`),
    `  mean reward by class: ${STEP_CLASSES.map((k) => `${k} ${f2(m.meanByClass[k])} (${m.steps[k]} steps)`).join(', ')}`,
    `  new above repeated ${pct(m.newAboveRepeated)}, new above uninformative ${pct(m.newAboveUninformative)}; ${m.unparsable} unparsable`,
    ...(m.constructed > 0
      ? [
          `  ${m.constructed} of ${m.episodes} episodes recorded no repeated or uninformative step: the card appended a repeat of their first call (its recorded outcome)`,
        ]
      : []),
  ];
}

/** What `pau calibrate critic` starts (criticCardWorkflow's input). */
export interface CriticCardInput {
  criticModel: string;
  /** The benchmark run whose episodes are rated; without it, any benchmark run's on dataset/split. */
  runId?: string;
  dataset: string;
  split: string;
  /** Episodes rated. */
  episodes: number;
  window?: number;
  force?: boolean;
  thresholds?: Partial<CriticCardThresholds>;
  /** The critic's prompt format (default DEFAULT_CRITIC_FORMAT): a card per format. */
  format?: CriticFormat;
  /** Leave out the first N episodes of the pick order: a confirming card on episodes a format was not chosen on. */
  skip?: number;
}

/** One episode the card rates: which, and whether a repeat is appended. */
export interface CriticCardPick {
  episodeId: string;
  methodId: string;
  runId: string;
  /** Append a repeat of the first executed call (the episode has no repeated or uninformative step of its own). */
  construct: boolean;
}

export interface CriticCardPlan {
  cardKey: string;
  dataset: string;
  split: string;
  picks: CriticCardPick[];
  /** Episodes already recorded (a rerun skips them). */
  recorded: string[];
  /** The format rated with; absent in plans from before formats (rubric). */
  format?: CriticFormat;
}

/** A candidate episode for the card: its classed steps (no rewards yet). */
export interface CriticCandidate {
  episodeId: string;
  methodId: string;
  runId: string;
  classes: StepClass[];
}

/**
 * The card's episodes, deterministically: candidates in (method, episode) order, round-robin over methods
 * (one episode per method before a second of any), those with a new step and a repeated or uninformative
 * one first; only when they are too few, episodes with new steps alone, each with a repeat appended.
 */
export function pickCriticEpisodes(candidates: readonly CriticCandidate[], n: number): CriticCardPick[] {
  const sorted = [...candidates].sort((a, b) => (a.methodId === b.methodId ? cmp(a.episodeId, b.episodeId) : cmp(a.methodId, b.methodId)));
  const hasNew = (c: CriticCandidate) => c.classes.includes('new');
  const natural = sorted.filter((c) => hasNew(c) && c.classes.some((k) => k !== 'new'));
  const onlyNew = sorted.filter((c) => hasNew(c) && c.classes.every((k) => k === 'new'));
  const pick = (xs: CriticCandidate[], construct: boolean): CriticCardPick[] =>
    roundRobin(xs).map((c) => ({ episodeId: c.episodeId, methodId: c.methodId, runId: c.runId, construct }));
  return [...pick(natural, false), ...pick(onlyNew, true)].slice(0, n);
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function roundRobin(xs: readonly CriticCandidate[]): CriticCandidate[] {
  const by = new Map<string, CriticCandidate[]>();
  for (const x of xs) by.set(x.methodId, [...(by.get(x.methodId) ?? []), x]);
  const lists = [...by.values()];
  const out: CriticCandidate[] = [];
  for (let i = 0; out.length < xs.length; i++) for (const l of lists) if (l[i]) out.push(l[i]!);
  return out;
}

/** The appended repeat: the episode's first executed call again, with the outcome it recorded; null when none ran. */
export function constructedRepeat(calls: readonly CriticCall[]): CriticCall | null {
  return calls.find((c) => c.status !== 'rejected') ?? null;
}

/** One card computation at a time per (critic, dataset split, run or any); a finished one can be started again. */
export function criticCardWorkflowId(criticModel: string, dataset: string, split: string, runId: string | undefined, format: CriticFormat = 'rubric'): string {
  return `critic-card/${criticModel}/${runId ? `run/${runId}` : `${dataset}/${split}`}${criticFormat(format).idSuffix}`;
}

/** The command that computes a missing card (what GRPO reports print). */
export function criticCardCommand(criticModel: string, dataset: string, format: CriticFormat = 'rubric'): string {
  return `npm run pau -- calibrate critic --critic ${criticModel} --dataset ${dataset}${criticFormat(format).flag}`;
}
