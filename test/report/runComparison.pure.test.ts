// Two runs side by side: paired by method within each model x setting both ran, the methods that moved
// most first, links to the transcript pages of both runs, the judge card's gating of what is shown.
import { describe, expect, it } from 'vitest';
import { headlineText } from '../../domain/report/headline';
import { renderHtml } from '../../domain/report/renderHtml';
import { comparedRows, comparisonSection, compareRuns, leadMetric } from '../../domain/report/runComparison';
import { transcriptHref } from '../../domain/report/transcriptLinks';
import { card, doc, runRows } from './fixtures';

const withRun = (run: string, rows: ReturnType<typeof runRows>) => rows.map((r) => ({ ...r, episodeId: `${run}/${r.episodeId}` }));

describe('run comparison', () => {
  it('pairs the methods both runs ran, per model x setting, and ranks the methods that moved', () => {
    const a = withRun('A', runRows(6));
    // Run B: the same methods, but `good` scores 2 lower on method m1 and B lacks method m5.
    const b = withRun(
      'B',
      runRows(6)
        .filter((r) => r.methodId !== 'src/m5')
        .map((r) => (r.methodId === 'src/m1' && r.model === 'good' ? { ...r, score: (r.score ?? 1) - 2 } : r)),
    );
    const c = compareRuns(a, b, { resamples: 200 });
    const score = c.paired.find((p) => p.model === 'good' && p.setting === 'interactive' && p.metric === 'score')!;
    expect(score.diff).toMatchObject({ n: 5, unpaired: 1, wins: 1, ties: 4, losses: 0 });
    expect(score.diff.mean).toBeCloseTo(2 / 5);
    const movers = c.movers.filter((m) => m.metric === 'score');
    expect(movers.map((m) => [m.methodId, m.model, m.delta])).toEqual([
      ['src/m1', 'good', 2],
      ['src/m1', 'good', 2],
    ]);
    expect(movers[0]!.currentEpisode.startsWith('A/')).toBe(true);
    expect(movers[0]!.previousEpisode.startsWith('B/')).toBe(true);
    const html = comparisonSection('A', 'B', c, { scores: true, codeMatch: true });
    expect(html).toContain(`href="${transcriptHref('A', movers[0]!.currentEpisode)}"`);
    expect(html).toContain(`href="${transcriptHref('B', movers[0]!.previousEpisode)}"`);
    expect(html).toContain('score (1-5): this run − B');
    // Each difference with its power: per-method differences [2, 0, 0, 0, 0], σ_d = √0.8 = 0.894,
    // MDE = 2.8016 · 0.894 / √5 = 1.12 > 0.40, and (2.8016 · 0.894 / 0.13)² = 371.5 methods for the paper's +0.13.
    const t = comparedRows(c, { scores: true, codeMatch: true });
    expect(t.headers.slice(-3)).toEqual(['σ_d', 'MDE (80 %)', "n for paper's effect"]);
    const row = t.rows.find((r) => r[0] === 'good / interactive' && r[1] === 'score (1-5)')!;
    expect(row.slice(3)).toEqual(['5', '1', '0.89', '1.12 (not resolved at this n)', '372 for ±0.13']);
    expect(html).toContain('<th>MDE (80 %)</th>');
    expect(html).toContain('<td>1.12 (not resolved at this n)</td><td>372 for ±0.13</td>');
    // The terminal prints the same rows under the group deltas.
    const text = headlineText(
      doc(a, {
        judgeCard: { status: 'qualified', card: card() },
        compare: { runId: 'B', judgeModel: 'local/judge-1.5b', judgeCard: { status: 'qualified', card: card() }, deltas: [], comparison: c },
      }),
    );
    expect(text).toContain('paired by method, this run - B:');
    expect(text).toMatch(
      /good \/ interactive\s+score \(1-5\)\s+\+0\.40 \[[^\]]+\] 1\/4\/0\s+5\s+1\s+0\.89\s+1\.12 \(not resolved at this n\)\s+372 for ±0\.13/,
    );
    // Beside score and code match, the terminal shows coverage, which needs no judge.
    expect(text).toMatch(/this run - B:[\s\S]*good \/ interactive\s+stmt cov\s+\+0\.0%/);
    expect(text).not.toContain('Compared without');
  });

  it("withholds the scores of a compared run whose judge has no card, as that run's own report does", () => {
    const a = withRun('A', runRows(6));
    const b = withRun('B', runRows(6)).map((r) => ({ ...r, score: 1 }));
    const c = compareRuns(a, b, { resamples: 50 });
    const missing = {
      status: 'missing' as const,
      judgeModel: 'mock-oracle',
      coderModel: 'mock-oracle',
      command: 'npm run pau -- calibrate judge --judge mock-oracle',
      forced: false,
    };
    const compared = doc(a, {
      judgeCard: { status: 'qualified', card: card() },
      compare: { runId: 'B', judgeModel: 'mock-oracle', judgeCard: missing, deltas: [], comparison: c },
    });
    const text = headlineText(compared);
    expect(text).toContain('Compared without scores and code match: run B withholds them (Scores withheld: no judge card for judge mock-oracle');
    const after = text.slice(text.indexOf('compared with B:'));
    expect(after).not.toMatch(/score \(1-5\)|code match \(unseen\)/);
    expect(after).toMatch(/good \/ interactive\s+stmt cov/);
    const html = renderHtml(compared);
    const section = html.slice(html.indexOf('<h2>Compared with B</h2>'), html.indexOf('<h2>Paired differences per method</h2>'));
    expect(section).toContain('Compared without scores and code match');
    expect(section).not.toContain('score (1-5)');
    // This run's own headline keeps its scores: its judge qualified.
    expect(text).toMatch(/good\s+interactive\s+8?6\/6\s+0\s+5\.00/);
    // A compared run with no judge at all: the same, saying it has none.
    const noJudge = headlineText(
      doc(a, { judgeCard: { status: 'qualified', card: card() }, compare: { runId: 'B', judgeModel: null, deltas: [], comparison: c } }),
    );
    expect(noJudge).toContain('Compared without scores and code match: run B withholds them (it has no judge).');
  });

  it('leads with coverage when the judge card withholds scores and code match, and never shows them', () => {
    const c = compareRuns(withRun('A', runRows(6)), withRun('B', runRows(6)), { resamples: 50 });
    const view = { scores: false, codeMatch: false };
    expect(leadMetric(view)).toBe('statementCoverage');
    const html = comparisonSection('A', 'B', c, view);
    expect(html).not.toContain('score (1-5)');
    expect(html).not.toContain('code match');
    expect(html).toContain('No method moved.');
  });

  it('says so when no model x setting is in both runs', () => {
    const b = withRun('B', runRows(6)).map((r) => ({ ...r, model: `${r.model}-other` }));
    const c = compareRuns(withRun('A', runRows(6)), b);
    expect(c.paired).toEqual([]);
    expect(comparisonSection('A', 'B', c, { scores: true, codeMatch: true })).toContain('nothing to pair');
  });
});
