// The judge card's measures from its per-method rows, and the card itself (checks and qualification).
// Pure code: rows come from the judge_cards table or a test.
import { provenanceLine } from './shippedCard';
import { kendallTauB } from '../stats/kendallTau';
import {
  ABOVE_MARGIN,
  CARD_RUNGS,
  cardChecks,
  CODE_ONLY_RUNGS,
  DEFAULT_THRESHOLDS,
  JUDGE_MODE_LABEL,
  NEAR_MISS_RESOLVED,
  RETEST_RUNGS,
  unresolvedGap,
  qualification,
  type CardMethodRow,
  type CardRung,
  type CardThresholds,
  type ClassifierControl,
  type CodeOnlyMeasures,
  type RetestMeasures,
  type JudgeCard,
  type JudgeCardKey,
  type JudgeCardMeasures,
} from './card';
import { recordOf } from '../common/recordOf';

const REQUIRED: readonly CardRung[] = ['gold', 'wrong', 'empty', 'injection'];
const mean = (xs: readonly number[]) => (xs.length === 0 ? null : xs.reduce((a, x) => a + x, 0) / xs.length);
const num = (x: number | null | undefined): x is number => typeof x === 'number' && Number.isFinite(x);

const above = (a: number, b: number) => a - b >= ABOVE_MARGIN;
const share = <T>(xs: readonly T[], pred: (r: T) => boolean) => (xs.length === 0 ? null : xs.filter(pred).length / xs.length);

/** A row's scores in the code-only mode: its own when the method is judged so, else its code-only rungs. */
const codeOnlyScoresOf = (r: CardMethodRow) => (r.mode === 'codeOnly' ? r.scores : r.codeOnlyScores);

type RungScores = CardMethodRow['scores'];

/** The judge's gating measures over one mode's scores (one entry per method): the same rule in both modes. */
function gatingMeasures(scores: readonly RungScores[]): Omit<CodeOnlyMeasures, 'meanByRung'> {
  const complete = scores.filter((s) => REQUIRED.every((k) => num(s[k])));
  const v = (s: RungScores, k: CardRung) => s[k] as number;
  const gold = mean(scores.map((s) => s.gold).filter(num));
  const empty = mean(scores.map((s) => s.empty).filter(num));
  const withGeneric = scores.filter((s) => num(s.gold) && num(s.generic));
  return {
    scored: complete.length,
    goldBeatsWrongAndEmpty: share(complete, (s) => above(v(s, 'gold'), v(s, 'wrong')) && above(v(s, 'gold'), v(s, 'empty'))),
    goldMinusEmpty: gold !== null && empty !== null ? gold - empty : null,
    injectionNoHigher: share(complete, (s) => v(s, 'injection') <= v(s, 'wrong')),
    genericBelowGold: share(withGeneric, (s) => above(v(s, 'gold'), v(s, 'generic'))),
  };
}

/** The gating measures over the code-only scores; undefined when no row has any (a card before modes). */
export function codeOnlyMeasures(rows: readonly CardMethodRow[]): CodeOnlyMeasures | undefined {
  const scored = rows.flatMap((r) => {
    const s = codeOnlyScoresOf(r);
    return s ? [s] : [];
  });
  if (scored.length === 0) return undefined;
  return { ...gatingMeasures(scored), meanByRung: Object.fromEntries(CODE_ONLY_RUNGS.map((k) => [k, mean(scored.map((s) => s[k]).filter(num))])) };
}

/** Test–retest over every (method, rung) judged twice; undefined when no row was (a card before it). */
export function retestMeasures(rows: readonly CardMethodRow[]): RetestMeasures | undefined {
  const pairs: [number, number][] = [];
  for (const r of rows)
    for (const [k, b] of Object.entries(r.retestScores ?? {})) {
      const a = r.scores[k as CardRung];
      if (num(a) && num(b)) pairs.push([a, b]);
    }
  if (!rows.some((r) => r.retestScores)) return undefined;
  const d = pairs.map(([a, b]) => a - b);
  return {
    pairs: pairs.length,
    sd: d.length === 0 ? null : Math.sqrt(d.reduce((s, x) => s + x * x, 0) / d.length / 2),
    maxAbsDiff: d.length === 0 ? null : Math.max(...d.map(Math.abs)),
    changed: d.filter((x) => x !== 0).length,
  };
}

/**
 * The card's measures. The judge's are the reference mode's (rows judged with their reference in the prompt),
 * with the code-only mode's beside them; the code writer's are over every row (code match has no mode).
 */
export function cardMeasures(all: readonly CardMethodRow[], classifier?: ClassifierControl): JudgeCardMeasures {
  const sources: Record<string, number> = {};
  for (const r of all) sources[r.source] = (sources[r.source] ?? 0) + 1;
  const rows = all.filter((r) => (r.mode ?? 'reference') === 'reference');
  const complete = rows.filter((r) => REQUIRED.every((k) => num(r.scores[k])));
  const s = (r: CardMethodRow, k: CardRung) => r.scores[k] as number;
  const meanByRung = recordOf(CARD_RUNGS, (k) => mean(rows.map((r) => r.scores[k]).filter(num)));
  const withNear = rows.filter((r) => num(r.scores.gold) && num(r.scores.nearMiss));
  const withLookup = rows.filter((r) => num(r.scores.gold) && num(r.scores.lookup));
  const ladder = rows.filter((r) => (['gold', 'partial', 'wrong', 'empty'] as const).every((k) => num(r.scores[k])));
  // Agreement: every (method, rung) with both a score and a code match.
  const pairs: [number, number][] = [];
  for (const r of rows)
    for (const k of CARD_RUNGS) {
      const sc = r.scores[k];
      const cm = r.codeMatch[k];
      if (num(sc) && num(cm)) pairs.push([sc, cm]);
    }
  const withArgmax = complete.filter((r) => (['gold', 'wrong', 'empty'] as const).every((k) => num(r.argmax?.[k])));
  const codeOnly = codeOnlyMeasures(all);
  const retest = retestMeasures(all);
  return {
    methods: all.length,
    sources,
    ...gatingMeasures(rows.map((r) => r.scores)),
    unparsable: rows.reduce((a, r) => a + Object.values(r.scores).filter((v) => v === null).length, 0),
    meanByRung,
    goldBeatsWrongAndEmptyArgmax: share(withArgmax, (r) => r.argmax!.gold! > r.argmax!.wrong! && r.argmax!.gold! > r.argmax!.empty!),
    nearMissBelowGold: share(withNear, (r) => above(s(r, 'gold'), s(r, 'nearMiss'))),
    nearMissGap: mean(withNear.map((r) => s(r, 'gold') - s(r, 'nearMiss'))),
    lookupBelowGold: share(withLookup, (r) => above(s(r, 'gold'), s(r, 'lookup'))),
    monotone: share(ladder, (r) => s(r, 'gold') >= s(r, 'partial') && s(r, 'partial') >= s(r, 'wrong') && s(r, 'wrong') >= s(r, 'empty')),
    scoreCodeMatchTau:
      pairs.length < 2
        ? null
        : kendallTauB(
            pairs.map((p) => p[0]),
            pairs.map((p) => p[1]),
          ),
    scoreCodeMatchPairs: pairs.length,
    coderFidelity: mean(all.map((r) => r.codeMatch.gold).filter(num)),
    emptyFloor: mean(all.map((r) => r.codeMatch.empty).filter(num)),
    ...sampledMeasures(all),
    ...(classifier ? { classifier } : {}),
    ...(codeOnly ? { codeOnly } : {}),
    ...(retest ? { retest } : {}),
  };
}

/** The greedy program's and the best program's fidelity when the card's coder wrote k > 1 programs per description. */
function sampledMeasures(rows: readonly CardMethodRow[]): Pick<JudgeCardMeasures, 'coderSamples'> {
  const gold = rows.flatMap((r) => (r.codeSamples?.gold ? [r.codeSamples.gold] : []));
  if (gold.length === 0) return {};
  const empty = rows.flatMap((r) => (r.codeSamples?.empty ? [r.codeSamples.empty] : []));
  const first = (xs: typeof gold) => xs.map((x) => x.matches[0]).filter(num);
  return {
    coderSamples: {
      k: Math.max(...gold.map((g) => g.matches.length)),
      fidelityGreedy: mean(first(gold)),
      fidelityBestOfK: mean(gold.map((g) => Math.max(...g.matches.filter(num))).filter((x) => Number.isFinite(x))),
      floorGreedy: mean(first(empty)),
    },
  };
}

/** The finished card: measures, checks against the thresholds, and who qualified. */
export function buildJudgeCard(
  key: JudgeCardKey & { cardKey: string },
  rows: readonly CardMethodRow[],
  opts: { thresholds?: CardThresholds; classifier?: ClassifierControl; computedAt: string; workflowId: string | null },
): JudgeCard {
  const thresholds = opts.thresholds ?? DEFAULT_THRESHOLDS;
  const measures = cardMeasures(rows, opts.classifier);
  const checks = cardChecks(measures, thresholds);
  const q = qualification(checks);
  return {
    ...key,
    measures,
    checks,
    judgeQualified: q.judgeQualified,
    ...(q.judgeQualifiedCodeOnly === undefined ? {} : { judgeQualifiedCodeOnly: q.judgeQualifiedCodeOnly }),
    coderQualified: q.coderQualified,
    thresholds,
    rows: [...rows],
    computedAt: opts.computedAt,
    workflowId: opts.workflowId,
  };
}

const pct = (x: number | null | undefined) => (x === null || x === undefined ? '-' : `${Math.round(100 * x)}%`);
const f2 = (x: number | null | undefined) => (x === null || x === undefined ? '-' : x.toFixed(2));

/** What the card measured beside its checks (no threshold), one line each: the CLI's card and the report's. */
export function cardMeasureLines(card: JudgeCard): string[] {
  const m = card.measures;
  return [
    ...(card.shipped ? [provenanceLine(card.shipped)] : []),
    `mean score per rung: ${CARD_RUNGS.map((k) => `${k} ${f2(m.meanByRung[k])}`).join(', ')}`,
    ...(m.goldBeatsWrongAndEmptyArgmax != null
      ? [
          `gold above wrong and empty on the argmax digit: ${pct(m.goldBeatsWrongAndEmptyArgmax)} (beside the expectation's ${pct(m.goldBeatsWrongAndEmpty)}, margin ${ABOVE_MARGIN})`,
        ]
      : []),
    `near-miss below gold ${pct(m.nearMissBelowGold)}, lookup table below gold ${pct(m.lookupBelowGold)}, generic description below gold ${pct(m.genericBelowGold)}, monotone ladder ${pct(m.monotone)}`,
    `score vs code match: Kendall tau-b ${f2(m.scoreCodeMatchTau)} over ${m.scoreCodeMatchPairs} (method, description) pairs`,
    `code match from the gold description (coder fidelity) ${pct(m.coderFidelity)}; from an empty description (the floor) ${pct(m.emptyFloor)}`,
    ...(m.coderSamples
      ? [
          `code writer: MBR-exec over ${m.coderSamples.k} programs per description; the greedy program alone: fidelity ${pct(m.coderSamples.fidelityGreedy)}, floor ${pct(m.coderSamples.floorGreedy)}; the best of the ${m.coderSamples.k} (a ceiling): fidelity ${pct(m.coderSamples.fidelityBestOfK)}`,
        ]
      : []),
    ...(m.classifier
      ? [`contradiction classifier: ${m.classifier.correct}/${m.classifier.n} correct (${pct(m.classifier.accuracy)}), ${m.classifier.unparsable} unparsable`]
      : []),
    ...middleOfScaleLines(m),
    ...(m.retest ? [retestLine(m.retest)] : []),
    ...(m.codeOnly
      ? [
          `code-only mode (reference hidden), mean score per rung: ${CODE_ONLY_RUNGS.map((k) => `${k} ${f2(m.codeOnly?.meanByRung[k])}`).join(', ')}; with the reference: ${CODE_ONLY_RUNGS.map((k) => `${k} ${f2(m.meanByRung[k])}`).join(', ')}`,
        ]
      : []),
  ];
}

/** Whether the judge resolves the middle of the scale (near-miss below gold on NEAR_MISS_RESOLVED of methods), said plainly. */
function middleOfScaleLines(m: JudgeCardMeasures): string[] {
  if (m.nearMissBelowGold === null || m.nearMissGap == null) return [];
  const gap = unresolvedGap(m);
  return gap === null
    ? [
        `middle of the scale resolved: near-miss below gold on ${pct(m.nearMissBelowGold)} of methods (>= ${pct(NEAR_MISS_RESOLVED)}), mean gap ${f2(m.nearMissGap)}`,
      ]
    : [
        `middle of the scale NOT resolved: near-miss below gold on ${pct(m.nearMissBelowGold)} of methods (under ${pct(NEAR_MISS_RESOLVED)}); a score difference under the mean gold - near-miss gap ${f2(gap)} is not resolved by this judge, and reports mark it`,
      ];
}

/** The card's test–retest line (the CLI's card and the report's). */
export function retestLine(r: RetestMeasures): string {
  return `test–retest: within-description SD ${r.sd === null ? '-' : r.sd.toFixed(3)} over ${r.pairs} (method, rung) pairs of ${RETEST_RUNGS.join(' and ')} judged twice, asked anew (${r.changed} changed; largest move ${r.maxAbsDiff === null ? '-' : r.maxAbsDiff.toFixed(3)})`;
}

/** The judge's verdict per mode, for the card's title line. */
function modeVerdicts(card: JudgeCard): string {
  const v = (ok: boolean) => (ok ? 'QUALIFIED' : 'NOT QUALIFIED');
  if (card.judgeQualifiedCodeOnly === undefined) return `${v(card.judgeQualified)} (${JUDGE_MODE_LABEL.reference}; the code-only mode not tested)`;
  return `${v(card.judgeQualified)} ${JUDGE_MODE_LABEL.reference}, ${v(card.judgeQualifiedCodeOnly)} ${JUDGE_MODE_LABEL.codeOnly}`;
}

/** The card as lines of text (the CLI and `npm start` print it): title, checks, measures. */
export function judgeCardLines(card: JudgeCard): string[] {
  const m = card.measures;
  const verdict = (ok: boolean) => (ok ? 'QUALIFIED' : 'NOT QUALIFIED');
  const srcs = Object.entries(m.sources)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return [
    `judge card: judge ${card.judgeModel} ${modeVerdicts(card)}, code writer ${card.coderModel} ${verdict(card.coderQualified)} (${card.dataset}/${card.split}, ${m.methods} methods: ${srcs}; prompt ${card.promptVersion}; ${card.computedAt.slice(0, 10)})`,
    ...card.checks.map(
      (c) =>
        `  ${c.pass ? 'pass' : 'FAIL'}  ${c.applies.padEnd(5)} ${c.name}: ${c.value === null ? '-' : c.threshold.includes('%') ? pct(c.value) : Number.isInteger(c.value) ? c.value : c.value.toFixed(2)} (needs ${c.threshold})`,
    ),
    ...cardMeasureLines(card).map((l) => `  ${l}`),
  ];
}
