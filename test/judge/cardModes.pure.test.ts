// The judge card per mode (issue 60, item 1): the gating rungs scored again with the reference hidden give
// code-only measures and checks, the judge qualifies per mode, and a report withholds the scores of the
// methods judged in a mode its card did not qualify, keeping the others and saying when it mixes modes.
import { describe, expect, it } from 'vitest';
import { judgePromptVersion, qualification, qualifiedModes, unresolvedGap, type CardMethodRow, type CardRung } from '../../domain/judge/card';
import { buildJudgeCard, cardMeasures, judgeCardLines, retestMeasures } from '../../domain/judge/cardSummary';
import { reportView, tableView, withheldModes, withholdScoresByMode } from '../../domain/report/judgeCardView';
import { belowGapText, pairedRows, summarize } from '../../domain/report/summarize';
import { runRows } from '../report/fixtures';

type Scores = Partial<Record<CardRung, number>>;
const GOOD: Scores = { gold: 4.5, partial: 3, nearMiss: 3, generic: 1.5, wrong: 1.2, injection: 1.1, empty: 1 };

function row(i: number, scores: Scores, codeOnly?: Scores, mode?: CardMethodRow['mode']): CardMethodRow {
  return {
    methodId: `m${i}`,
    source: mode === 'codeOnly' ? 'cruxeval' : 'humaneval',
    scores,
    codeMatch: { gold: 0.8, empty: 0.2 },
    ...(mode ? { mode } : {}),
    ...(codeOnly ? { codeOnlyScores: codeOnly } : {}),
  };
}

const KEY = { cardKey: 'k', judgeModel: 'j', coderModel: 'j', judgeParams: {}, coderParams: {}, promptVersion: 'p', dataset: 'd', split: 'validation' };
const cardOf = (rows: CardMethodRow[]) => buildJudgeCard(KEY, rows, { computedAt: '2026-12-07T00:00:00.000Z', workflowId: null });

describe('code-only measures and checks', () => {
  it('read the code-only scores (a code-only method its own), the reference measures only reference rows', () => {
    // 20 reference methods whose code-only gold sits 0.3 above empty (fails the margin), one CRUXEval method judged code-only.
    const weak: Scores = { gold: 1.6, generic: 1.4, wrong: 1.3, injection: 1.3, empty: 1.3 };
    const rows = [...Array.from({ length: 20 }, (_, i) => row(i, GOOD, weak, 'reference')), row(20, { ...GOOD, gold: 4 }, undefined, 'codeOnly')];
    const m = cardMeasures(rows);
    expect(m.methods).toBe(21);
    expect(m.scored).toBe(20);
    expect(m.meanByRung.gold).toBeCloseTo(4.5);
    expect(m.codeOnly?.scored).toBe(21);
    expect(m.codeOnly?.meanByRung.gold).toBeCloseTo((20 * 1.6 + 4) / 21);
    expect(m.codeOnly?.goldBeatsWrongAndEmpty).toBeCloseTo(1 / 21);
    expect(m.codeOnly?.injectionNoHigher).toBe(1);
    const card = cardOf(rows);
    expect(card.judgeQualified).toBe(true);
    expect(card.judgeQualifiedCodeOnly).toBe(false);
    expect(qualifiedModes(card)).toEqual(['reference']);
    const failed = card.checks.filter((c) => !c.pass).map((c) => c.name);
    expect(failed).toEqual([
      'code-only: gold above wrong and empty (share of methods)',
      'code-only: mean score gold - empty',
      'code-only: gold above a description true of any function (share)',
    ]);
    const text = judgeCardLines(card).join('\n');
    expect(text).toContain('judge j QUALIFIED against a reference, NOT QUALIFIED against the code alone');
    expect(text).toMatch(/FAIL {2}judge code-only: mean score gold - empty: 0\.\d\d \(needs >= 2\.00\)/);
    expect(text).toMatch(/code-only mode \(reference hidden\), mean score per rung: gold 1\.\d\d, generic .*; with the reference: gold 4\.5\d/);
  });

  it('a card before modes has no code-only measures, checks or verdict, and says the mode was not tested', () => {
    const card = cardOf(Array.from({ length: 20 }, (_, i) => row(i, GOOD)));
    expect(card.measures.codeOnly).toBeUndefined();
    expect(card.checks.some((c) => c.mode === 'codeOnly')).toBe(false);
    expect(card.judgeQualifiedCodeOnly).toBeUndefined();
    expect(qualification(card.checks).judgeQualifiedCodeOnly).toBeUndefined();
    expect(judgeCardLines(card)[0]).toContain('QUALIFIED (against a reference; the code-only mode not tested)');
    expect(withheldModes({ status: 'qualified', card })).toEqual(['codeOnly']);
  });

  it('a card stored under the card version: cards from before code-only rungs do not match', () => {
    expect(judgePromptVersion('contrast')).toBe('judge-v4/contrast/card2');
    expect(judgePromptVersion('verify', 3)).toBe('judge-v4/verify/card2/coder-mbr3');
  });
});

describe('the middle of the scale', () => {
  it('a judge that puts near-miss below gold on under 80 % of methods: its gap marks smaller score differences as not resolved', () => {
    // Near-miss 3.0 against gold 4.5 on 10 methods (below by the margin), 4.4 on 10 (not): 50 %, mean gap 0.8.
    const rows = Array.from({ length: 20 }, (_, i) => row(i, { ...GOOD, nearMiss: i < 10 ? 3 : 4.4 }, GOOD, 'reference'));
    const card = cardOf(rows);
    expect(card.measures.nearMissBelowGold).toBe(0.5);
    expect(card.measures.nearMissGap).toBeCloseTo(0.8);
    expect(unresolvedGap(card.measures)).toBeCloseTo(0.8);
    expect(card.judgeQualified).toBe(true); // it does not gate
    expect(judgeCardLines(card).join('\n')).toContain(
      'middle of the scale NOT resolved: near-miss below gold on 50% of methods (under 80%); a score difference under the mean gold - near-miss gap 0.80 is not resolved by this judge',
    );
    const view = reportView({ judgeModel: 'j', judgeCard: { status: 'qualified', card } });
    expect(view.nearMissGap).toBeCloseTo(0.8);
    // good - bad on score is +3.5 per method (resolved); a 0.3 difference is not.
    const paired = pairedRows(summarize(runRows(8), { resamples: 200 }), tableView(view));
    expect(paired.rows.find((r) => r[0] === 'interactive: bad - good' && r[1] === 'score (1-5)')?.[2]).not.toContain('not resolved');
    expect(belowGapText({ mean: 0.3 }, 'score', 0.8)).toBe(" (under the judge's near-miss gap 0.80: not resolved)");
    expect(belowGapText({ mean: 0.3 }, 'failRate', 0.8)).toBe('');
    // A judge that resolves it: no gap, and the card says so.
    const sharp = cardOf(Array.from({ length: 20 }, (_, i) => row(i, GOOD, GOOD, 'reference')));
    expect(unresolvedGap(sharp.measures)).toBeNull();
    expect(judgeCardLines(sharp).join('\n')).toContain('middle of the scale resolved: near-miss below gold on 100% of methods');
  });
});

describe('test–retest', () => {
  it('is the within-description SD over every (method, rung) judged twice; absent from cards before it', () => {
    const rows = [
      { ...row(0, GOOD), retestScores: { gold: 4.5, nearMiss: 3.2 } },
      { ...row(1, GOOD), retestScores: { gold: 4.1, nearMiss: null } },
      row(2, GOOD),
    ];
    // Pairs: (4.5, 4.5), (3, 3.2), (4.5, 4.1); d = 0, -0.2, 0.4: sqrt((0 + 0.04 + 0.16) / 3 / 2).
    const r = retestMeasures(rows)!;
    expect(r.pairs).toBe(3);
    expect(r.sd).toBeCloseTo(Math.sqrt(0.2 / 6));
    expect(r.maxAbsDiff).toBeCloseTo(0.4);
    expect(r.changed).toBe(2);
    expect(judgeCardLines(cardOf(rows)).join('\n')).toMatch(
      /test–retest: within-description SD 0\.183 over 3 \(method, rung\) pairs of gold and nearMiss judged twice, asked anew \(2 changed; largest move 0\.400\)/,
    );
    expect(retestMeasures([row(0, GOOD)])).toBeUndefined();
  });
});

describe('a report with a judge qualified in one mode', () => {
  // 8 methods; the even ones are judged against the code alone.
  const rows = runRows(8).map((r) => ({ ...r, judgeMode: Number(r.methodId.slice(5)) % 2 === 0 ? ('codeOnly' as const) : ('reference' as const) }));
  const weak: Scores = { gold: 1.6, generic: 1.4, wrong: 1.3, injection: 1.3, empty: 1.3 };
  const card = cardOf(Array.from({ length: 20 }, (_, i) => row(i, GOOD, weak, 'reference')));
  const status = { status: 'qualified' as const, card };

  it('withholds the failed mode: its rows leave the score means, never filled as failures, and say so', () => {
    const { rows: shown, notes } = withholdScoresByMode(rows, withheldModes(status));
    expect(shown.filter((r) => r.scoreWithheld).length).toBe(16);
    const s = summarize(shown, { resamples: 200 });
    const good = s.groups.find((g) => g.model === 'good' && g.setting === 'interactive')!;
    // Only the 4 reference methods: each 5 (filling the withheld as 1 would give 3).
    expect(good.metrics.score.mean).toBe(5);
    expect(good.metrics.score.n).toBe(4);
    // Code match has no mode: all 8 methods.
    expect(good.metrics.codeMatchUnobserved.n).toBe(8);
    expect(notes).toEqual(['Scores of 4 method(s) judged against the code alone are withheld (the judge card did not qualify the judge in that mode).']);
    const view = reportView({ judgeModel: 'j', judgeCard: status });
    expect(view.scores).toBe(true);
    expect(view.withheld).toMatch(/^Scores of methods judged against the code alone withheld: code-only: gold above wrong and empty \(share of methods\): 0%/);
  });

  it('says when the scores it shows mix the modes', () => {
    const both = cardOf(Array.from({ length: 20 }, (_, i) => row(i, GOOD, GOOD, 'reference')));
    expect(withheldModes({ status: 'qualified', card: both })).toEqual([]);
    const { rows: shown, notes } = withholdScoresByMode(rows, []);
    expect(shown.some((r) => r.scoreWithheld)).toBe(false);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^Scores average 4 method\(s\) judged against a reference and 4 judged against the code alone/);
    // Forced and unqualified cards withhold by their own rule, not per mode.
    expect(withheldModes({ status: 'unqualified', card, failed: [], forced: true })).toEqual([]);
  });
});
