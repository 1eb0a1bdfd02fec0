// How a report presents its judge (issue 27, items 2, 6 and 8), on documents built by hand: the judge
// card on top; no score headline from a judge without a passing card (judge-free columns and one
// sentence instead), scores under a banner when forced; code match over unseen held-out inputs beside
// the card's empty-description floor; paired differences collapsed below a number of methods; the plots.
import { describe, expect, it } from 'vitest';
import { headlineText } from '../../domain/report/headline';
import { renderHtml } from '../../domain/report/renderHtml';
import { intervalPlotSvg, settingPairs, settingScatterSvg } from '../../domain/report/plots';
import { headlineRows, MIN_METHODS_TO_COMPARE, pairedRows, summarize } from '../../domain/report/summarize';
import { baseRow, card, doc, runRows } from './fixtures';

const rows = runRows(8);
const missing = {
  status: 'missing' as const,
  judgeModel: 'local/qwen-0.5b',
  coderModel: 'local/qwen-0.5b',
  command: 'npm run pau -- calibrate judge --judge local/qwen-0.5b',
  forced: false,
};
const tableOf = (text: string) => text.split('\n').find((l) => /^model\s+setting\s+/.test(l)) ?? '';

describe('the judge card in reports', () => {
  it('a qualified judge: card with every check, then the score headline with code match (unseen) beside the empty floor', () => {
    const text = headlineText(doc(rows, { judgeCard: { status: 'qualified', card: card() } }));
    const lines = text.split('\n');
    expect(lines[1]).toMatch(
      /^judge card: judge local\/judge-1\.5b qualified against a reference, qualified against the code alone, code writer local\/judge-1\.5b qualified \(pau-v1\/validation, 24 methods/,
    );
    expect(text).toMatch(/code-only: gold above wrong and empty \(share of methods\)\s+judge\s+92%\s+>= 90%\s+pass/);
    expect(text).toMatch(/gold above wrong and empty \(share of methods\)\s+judge\s+96%\s+>= 90%\s+pass/);
    expect(text).toMatch(/coder fidelity: code match of code from the gold description\s+coder\s+72%\s+>= 60%\s+pass/);
    expect(tableOf(text)).toMatch(/score \(1-5\)\s+fail rate \(<=2\)\s+code match \(unseen\)\s+over empty floor/);
    // good: 85% unseen, floor 30% -> +55.0 points; bad: 10% -> -20.0.
    expect(text).toMatch(/good\s+interactive\s+8\/8\s+0\s+5\.00 \[5\.00, 5\.00\]\s+0\.0% \[0\.0%, 0\.0%\]\s+85\.0% \[85\.0%, 85\.0%\]\s+\+55\.0 pts/);
    expect(text).toMatch(/bad\s+interactive\s+.*10\.0% \[10\.0%, 10\.0%\]\s+-20\.0 pts/);
    // The all-inputs figure is secondary: the interactive bad agent's 40% counts inputs it had observed.
    expect(text).toMatch(/code match, unseen vs all held-out inputs:[\s\S]*bad\s+interactive\s+10\.0% \[10\.0%, 10\.0%\]\s+40\.0% \[40\.0%, 40\.0%\]\s+56\/80/);
    expect(text).not.toContain('withheld');
    expect(text).not.toContain('test–retest'); // the fixture card has none
    const retested = headlineText(
      doc(rows, { judgeCard: { status: 'qualified', card: card({ retest: { pairs: 40, sd: 0.012, maxAbsDiff: 0.05, changed: 9 } }) } }),
    );
    expect(retested).toContain(
      "judge test–retest SD 0.012 per description (its card: 40 descriptions asked twice): a score difference within it is the judge's own noise",
    );
    // Paired differences with their power: bad - good on score per method is -4, -3, -4, ... (8 methods):
    // σ_d = √(2/7) = 0.53, MDE = 2.8016 · 0.53 / √8 = 0.53 (resolved), (2.8016 · 0.53 / 0.13)² = 132.7 methods for +0.13.
    expect(text).toMatch(/comparison\s+metric\s+a - b \[95% CI\] wins\/ties\/losses\s+methods\s+unpaired\s+σ_d\s+MDE \(80 %\)\s+n for paper's effect/);
    expect(text).toMatch(/interactive: bad - good\s+score \(1-5\)\s+-3\.50 \[[^\]]+\] 0\/0\/8\s+8\s+0\s+0\.53\s+0\.53\s+133 for ±0\.13\n/);
    expect(text).toContain('MDE (80 %): the smallest difference this many methods detect with 80 % power');
    expect(renderHtml(doc(rows, { judgeCard: { status: 'qualified', card: card() } }))).toMatch(
      /<td>interactive: bad - good<\/td><td>score \(1-5\)<\/td><td>-3\.50 \[[^\]]+\] 0\/0\/8<\/td><td>8<\/td><td>0<\/td><td>0\.53<\/td><td>0\.53<\/td><td>133 for ±0\.13<\/td>/,
    );
  });

  it('an unqualified judge (not forced): no score headline; judge-free columns and one sentence naming the failed thresholds', () => {
    const bad = card({ goldBeatsWrongAndEmpty: 0.7 });
    const text = headlineText(doc(rows, { judgeCard: { status: 'unqualified', card: bad, failed: [], forced: false } }));
    expect(text).toContain(
      'Scores withheld: judge local/judge-1.5b did not pass its card (gold above wrong and empty (share of methods): 70% (needs >= 90%)).',
    );
    expect(text).toMatch(/gold above wrong and empty \(share of methods\)\s+judge\s+70%\s+>= 90%\s+FAIL/);
    const head = tableOf(text);
    expect(head).not.toContain('score (1-5)');
    expect(head).not.toContain('fail rate');
    // The coder qualified: code match (unseen) is shown, beside the floor, with calls, coverage and end reasons.
    expect(head).toMatch(/episodes\s+not scored\s+calls\s+stmt cov\s+branch cov\s+code match \(unseen\)\s+over empty floor\s+end reasons/);
    expect(text).toMatch(/bad\s+interactive\s+8\s+0\s+6\.0\s+.*final 5, budget 3/);
    expect(text).not.toMatch(/\d\.\d\d \[\d\.\d\d, \d\.\d\d\]/); // no score anywhere
    // Paired differences keep the judge-free metric only.
    expect(text).toMatch(/interactive: bad - good\s+code match \(unseen\)\s+-75\.0%/);
    expect(text).not.toMatch(/(score \(1-5\)|fail rate \(<=2\))\s+[+-]\d/);

    // A coder below its threshold: code match goes too, and the sentence says so.
    const both = card({ goldBeatsWrongAndEmpty: 0.7, coderFidelity: 0.4 });
    const t2 = headlineText(doc(rows, { judgeCard: { status: 'unqualified', card: both, failed: [], forced: false } }));
    expect(tableOf(t2)).not.toContain('code match');
    expect(t2).toContain(
      'code match withheld too: code writer local/judge-1.5b did not pass (coder fidelity: code match of code from the gold description: 40% (needs >= 60%))',
    );
    expect(t2).not.toContain('code match, unseen vs all');
  });

  it('no card yet: the command that computes it, no score and no code match', () => {
    const text = headlineText(doc(rows, { judgeCard: missing }));
    expect(text.split('\n')[1]).toBe(
      'judge card: none yet for judge local/qwen-0.5b, code writer local/qwen-0.5b; compute it: npm run pau -- calibrate judge --judge local/qwen-0.5b',
    );
    expect(text).toContain('Scores withheld: no judge card for judge local/qwen-0.5b with code writer local/qwen-0.5b yet');
    expect(tableOf(text)).not.toMatch(/score \(1-5\)|fail rate|code match/);
    const html = renderHtml(doc(rows, { judgeCard: missing }));
    expect(html).toContain('<code>npm run pau -- calibrate judge --judge local/qwen-0.5b</code>');
    expect(html).toContain('<h2>Judge-free measures: model × setting</h2>');
    expect(html).not.toContain('<h2>Headline: model × setting</h2>');
    expect(html).not.toContain('<h2>Score distribution');
    // The scores are still in the file, folded away and marked.
    expect(html).toContain('<summary>Scores from the unqualified judge (not measurements)</summary>');
  });

  it('forced with an unqualified judge: scores shown under "UNQUALIFIED JUDGE — forced" naming the failed thresholds', () => {
    const bad = card({ goldBeatsWrongAndEmpty: 0.7 });
    const failed = ['gold above wrong and empty (share of methods): 70% (needs >= 90%)'];
    const d = doc(rows, { judgeCard: { status: 'unqualified', card: bad, failed, forced: true } });
    const text = headlineText(d);
    expect(text.split('\n')[0]).toBe(`UNQUALIFIED JUDGE — forced: ${failed[0]}`);
    expect(tableOf(text)).toContain('score (1-5)');
    const html = renderHtml(d);
    expect(html.indexOf('UNQUALIFIED JUDGE — forced')).toBeLessThan(html.indexOf('<h1>'));
    expect(html).toContain('<h2>Score distribution (unqualified judge, forced)</h2>');
    // Forced with no card at all is marked the same way.
    expect(headlineText(doc(rows, { judgeCard: { ...missing, forced: true } })).split('\n')[0]).toMatch(
      /^UNQUALIFIED JUDGE — forced: no judge card for judge local\/qwen-0\.5b/,
    );
  });

  it('a qualified judge with an unqualified code writer: scores shown, code match withheld with the reason', () => {
    const c = card({ coderFidelity: 0.4 });
    expect(c).toMatchObject({ judgeQualified: true, coderQualified: false });
    const text = headlineText(doc(rows, { judgeCard: { status: 'qualified', card: c } }));
    expect(tableOf(text)).toContain('score (1-5)');
    expect(tableOf(text)).not.toContain('code match');
    expect(text).toContain(
      'Code match withheld: code writer local/judge-1.5b did not pass its checks (coder fidelity: code match of code from the gold description: 40% (needs >= 60%)).',
    );
    expect(text).not.toMatch(/code match \(unseen\)\s+[+-]\d/); // nor in the paired differences
  });

  it('a document from before judge cards is shown as it was, and says it has no card', () => {
    const text = headlineText(doc(rows));
    expect(text).toContain('judge card: none attached to this report');
    expect(tableOf(text)).toContain('score (1-5)');
  });

  it('a run with no judge: no score row, no card talk, and the judge-free measures with coverage', () => {
    // Not judged: no score, but the coverage measured at each episode's end and the calls are there.
    const free = rows.map((r) => ({ ...r, judged: false, score: null, codeMatch: null, codeMatchUnobserved: null, diagnostics: null }));
    const d = doc(free, { judgeModel: null });
    const text = headlineText(d);
    expect(text).toContain('no judge: the episodes are not judged, so there is no score, only the judge-free measures');
    expect(text).not.toContain('built before judge cards');
    expect(text).not.toContain('withheld');
    const head = tableOf(text);
    expect(head).toMatch(/episodes\s+not scored\s+calls\s+stmt cov\s+branch cov\s+end reasons/);
    expect(head).not.toMatch(/score \(1-5\)|fail rate|code match/);
    expect(text).not.toMatch(/1\.00 \[1\.00, 1\.00\]/);
    // good covers everything, bad half of it: measured, not '-'.
    expect(text).toMatch(/good\s+interactive\s+8\s+8 unjudged\s+6\.0\s+100\.0% \[100\.0%, 100\.0%\]/);
    expect(text).toMatch(/bad\s+interactive\s+8\s+8 unjudged\s+6\.0\s+50\.0% \[50\.0%, 50\.0%\]/);
    expect(text).not.toContain('judged episodes only');
    const html = renderHtml(d);
    expect(html).toContain('<h2>No judge</h2>');
    expect(html).toContain('<h2>Judge-free measures: model × setting</h2>');
    expect(html).not.toContain('Scores from the unqualified judge');
    expect(html).not.toContain('built before judge cards');
    expect(html).not.toContain('<h2>Score distribution');
  });

  it("the run's self-judging (forced with --allow-self-judge) is in the header", () => {
    const selfJudge = [{ agent: 'local/qwen-0.5b', judge: 'local/qwen-0.5b', role: 'judge', relation: 'same model' }];
    const d = doc(rows, { run: { ...doc(rows).run!, config: { selfJudge } } });
    const line = 'self-judging (forced with --allow-self-judge): agent local/qwen-0.5b graded by local/qwen-0.5b as judge (same model)';
    expect(headlineText(d).split('\n')[1]).toBe(line);
    expect(renderHtml(d)).toContain(line);
    expect(headlineText(doc(rows, { run: { ...doc(rows).run!, config: { selfJudge: 'garbage' } } }))).not.toContain('self-judging');
  });
});

describe('a report read at a glance', () => {
  it(`paired differences over fewer than ${MIN_METHODS_TO_COMPARE} methods are one line, in the text and the HTML`, () => {
    const one = doc(runRows(1), { judgeCard: { status: 'qualified', card: card() } });
    const text = headlineText(one);
    expect(text).toContain(`paired per method: n = 1: too few methods to compare (paired differences need at least ${MIN_METHODS_TO_COMPARE})`);
    expect(text).not.toContain('interactive - in-context');
    expect(renderHtml(one)).toContain('<p>n = 1: too few methods to compare');
    // At the threshold the table is back.
    const five = pairedRows(summarize(runRows(MIN_METHODS_TO_COMPARE), { resamples: 100 }));
    expect(five.tooFew).toBeNull();
    expect(five.rows.length).toBe(12); // 2 models x 3 metrics interactive - in-context, 2 settings x 3 metrics bad - good
  });

  it('plots: a mean with its interval per model x setting, and one point per method and model for interactive vs in-context', () => {
    const s = summarize(runRows(6), { resamples: 100 });
    const svg = intervalPlotSvg(s.groups, 'score', 'score (1-5)');
    expect(svg.match(/<circle /g)).toHaveLength(4);
    // Interactive dots are filled, in-context ones open.
    expect(svg.match(/fill="#fff"/g)).toHaveLength(2);
    expect(svg).toContain('good / interactive: 5.00 [5.00, 5.00], 6 episodes');
    const pairs = settingPairs(runRows(6), 'score');
    expect(pairs).toHaveLength(12);
    expect(pairs.find((p) => p.model === 'good')).toMatchObject({ interactive: 5, inContext: 4 });
    expect(settingScatterSvg(runRows(6), 'score')!.match(/<circle /g)).toHaveLength(12);
    // No method with both settings: no scatter.
    expect(settingScatterSvg([baseRow], 'score')).toBeNull();
    const html = renderHtml(doc(runRows(6), { judgeCard: { status: 'qualified', card: card() } }));
    expect(html).toContain('<h2>At a glance</h2>');
    expect(html).toContain('empty-description floor 30%');
  });
});

describe('code match on unseen held-out inputs in the summary', () => {
  it('is counted exactly as code match: failed and unjudged episodes 0, an excluded method none, a judged one without it none', () => {
    const s = summarize([
      { ...baseRow, codeMatch: 0.8, codeMatchUnobserved: 0.6 },
      { ...baseRow, episodeId: 'f', status: 'failed', judged: false, score: null, codeMatch: null, codeMatchUnobserved: null },
      { ...baseRow, episodeId: 'u', judged: false, score: null, codeMatch: null, codeMatchUnobserved: null },
      { ...baseRow, episodeId: 'x', methodId: 'x', judged: false, score: null, codeMatch: null, codeMatchUnobserved: null, codeMatchExcluded: true },
      // Judged before the figure existed (or every held-out input observed): in no mean.
      { ...baseRow, episodeId: 'o', codeMatch: 1, codeMatchUnobserved: undefined },
    ]);
    const g = s.groups[0]!;
    expect(g.metrics.codeMatchUnobserved).toMatchObject({ n: 3, mean: 0.6 / 3 });
    expect(g.metrics.codeMatch).toMatchObject({ n: 4, mean: 1.8 / 4 });
    expect(g.judgedOnly.codeMatchUnobserved).toMatchObject({ n: 1, mean: 0.6 });
    expect(headlineRows(s).headers).toContain('code match (unseen)');
    expect(headlineRows(s).headers).not.toContain('code match (all inputs)');
  });

  it('a run judged before the figure existed has none: its failed episodes do not make a mean of zeros', () => {
    const s = summarize([
      { ...baseRow, codeMatchUnobserved: undefined },
      { ...baseRow, episodeId: 'f', status: 'failed', judged: false, score: null, codeMatch: null, codeMatchUnobserved: null },
    ]);
    expect(s.groups[0]!.metrics.codeMatchUnobserved.mean).toBeNull();
    expect(s.groups[0]!.metrics.codeMatch).toMatchObject({ n: 2, mean: 0.25 });
  });
});
