// Two runs side by side: paired by method within each model x setting both ran, the methods that moved
// most first, links to the transcript pages of both runs, the judge card's gating of what is shown.
import { describe, expect, it } from 'vitest';
import { comparisonSection, compareRuns, leadMetric } from '../../domain/report/runComparison';
import { transcriptHref } from '../../domain/report/transcriptLinks';
import { runRows } from './fixtures';

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
