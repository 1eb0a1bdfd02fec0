// The judge card's measures from its per-method rows, and the card itself (checks and qualification).
// Pure code: rows come from the judge_cards table or a test.
import { kendallTauB } from '../stats/kendallTau';
import {
  ABOVE_MARGIN,
  CARD_RUNGS,
  cardChecks,
  DEFAULT_THRESHOLDS,
  qualification,
  type CardMethodRow,
  type CardRung,
  type CardThresholds,
  type ClassifierControl,
  type JudgeCard,
  type JudgeCardKey,
  type JudgeCardMeasures,
} from './card';
import { recordOf } from '../common/recordOf';

const REQUIRED: readonly CardRung[] = ['gold', 'wrong', 'empty', 'injection'];
const mean = (xs: readonly number[]) => (xs.length === 0 ? null : xs.reduce((a, x) => a + x, 0) / xs.length);
const num = (x: number | null | undefined): x is number => typeof x === 'number' && Number.isFinite(x);

export function cardMeasures(rows: readonly CardMethodRow[], classifier?: ClassifierControl): JudgeCardMeasures {
  const sources: Record<string, number> = {};
  for (const r of rows) sources[r.source] = (sources[r.source] ?? 0) + 1;
  const complete = rows.filter((r) => REQUIRED.every((k) => num(r.scores[k])));
  const s = (r: CardMethodRow, k: CardRung) => r.scores[k] as number;
  const share = (xs: readonly CardMethodRow[], pred: (r: CardMethodRow) => boolean) => (xs.length === 0 ? null : xs.filter(pred).length / xs.length);
  const meanByRung = recordOf(CARD_RUNGS, (k) => mean(rows.map((r) => r.scores[k]).filter(num)));
  const withNear = rows.filter((r) => num(r.scores.gold) && num(r.scores.nearMiss));
  const withLookup = rows.filter((r) => num(r.scores.gold) && num(r.scores.lookup));
  const withGeneric = rows.filter((r) => num(r.scores.gold) && num(r.scores.generic));
  const ladder = rows.filter((r) => (['gold', 'partial', 'wrong', 'empty'] as const).every((k) => num(r.scores[k])));
  // Agreement: every (method, rung) with both a score and a code match.
  const pairs: [number, number][] = [];
  for (const r of rows)
    for (const k of CARD_RUNGS) {
      const sc = r.scores[k];
      const cm = r.codeMatch[k];
      if (num(sc) && num(cm)) pairs.push([sc, cm]);
    }
  const above = (a: number, b: number) => a - b >= ABOVE_MARGIN;
  const withArgmax = complete.filter((r) => (['gold', 'wrong', 'empty'] as const).every((k) => num(r.argmax?.[k])));
  const goldMean = meanByRung.gold;
  const emptyMean = meanByRung.empty;
  return {
    methods: rows.length,
    sources,
    scored: complete.length,
    unparsable: rows.reduce((a, r) => a + Object.values(r.scores).filter((v) => v === null).length, 0),
    meanByRung,
    goldBeatsWrongAndEmpty: share(complete, (r) => above(s(r, 'gold'), s(r, 'wrong')) && above(s(r, 'gold'), s(r, 'empty'))),
    goldBeatsWrongAndEmptyArgmax: share(withArgmax, (r) => r.argmax!.gold! > r.argmax!.wrong! && r.argmax!.gold! > r.argmax!.empty!),
    goldMinusEmpty: goldMean !== null && emptyMean !== null ? goldMean - emptyMean : null,
    nearMissBelowGold: share(withNear, (r) => above(s(r, 'gold'), s(r, 'nearMiss'))),
    lookupBelowGold: share(withLookup, (r) => above(s(r, 'gold'), s(r, 'lookup'))),
    genericBelowGold: share(withGeneric, (r) => above(s(r, 'gold'), s(r, 'generic'))),
    injectionNoHigher: share(complete, (r) => s(r, 'injection') <= s(r, 'wrong')),
    monotone: share(ladder, (r) => s(r, 'gold') >= s(r, 'partial') && s(r, 'partial') >= s(r, 'wrong') && s(r, 'wrong') >= s(r, 'empty')),
    scoreCodeMatchTau:
      pairs.length < 2
        ? null
        : kendallTauB(
            pairs.map((p) => p[0]),
            pairs.map((p) => p[1]),
          ),
    scoreCodeMatchPairs: pairs.length,
    coderFidelity: mean(rows.map((r) => r.codeMatch.gold).filter(num)),
    emptyFloor: mean(rows.map((r) => r.codeMatch.empty).filter(num)),
    ...sampledMeasures(rows),
    ...(classifier ? { classifier } : {}),
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
  ];
}

/** The card as lines of text (the CLI and `npm start` print it): title, checks, measures. */
export function judgeCardLines(card: JudgeCard): string[] {
  const m = card.measures;
  const verdict = (ok: boolean) => (ok ? 'QUALIFIED' : 'NOT QUALIFIED');
  const srcs = Object.entries(m.sources)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return [
    `judge card: judge ${card.judgeModel} ${verdict(card.judgeQualified)}, code writer ${card.coderModel} ${verdict(card.coderQualified)} (${card.dataset}/${card.split}, ${m.methods} methods: ${srcs}; prompt ${card.promptVersion}; ${card.computedAt.slice(0, 10)})`,
    ...card.checks.map(
      (c) =>
        `  ${c.pass ? 'pass' : 'FAIL'}  ${c.applies.padEnd(5)} ${c.name}: ${c.value === null ? '-' : c.threshold.includes('%') ? pct(c.value) : Number.isInteger(c.value) ? c.value : c.value.toFixed(2)} (needs ${c.threshold})`,
    ),
    ...cardMeasureLines(card).map((l) => `  ${l}`),
  ];
}
