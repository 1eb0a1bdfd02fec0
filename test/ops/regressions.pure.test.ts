import { describe, expect, it } from 'vitest';
import { describeRegression, findRegressions } from '../../domain/report/regressions';
import { summarize, type EpisodeRow } from '../../domain/report/summarize';
import { episodeRow } from '../fixtures/episodeRows';

// Rows with only what the summary reads; scores and code match vary, coverage is constant.
function rows(model: string, scores: number[], codeMatch: number[]): EpisodeRow[] {
  return scores.map((score, i) =>
    episodeRow({
      episodeId: `r/${model}/${i}`,
      methodId: `m/${i}`,
      source: 'fixture',
      model,
      endReason: 'submitted',
      score,
      codeMatch: codeMatch[i] ?? null,
      callsMade: 3,
      tokensIn: 0,
      tokensOut: 0,
    }),
  );
}

describe('regressions between scheduled runs', () => {
  const before = summarize(rows('m', [5, 5, 4, 5, 4, 5, 5, 4], [1, 1, 0.9, 1, 1, 0.9, 1, 1]));

  it('flags a mean below the previous 95% interval, and a fail rate above it', () => {
    const after = summarize(rows('m', [2, 1, 2, 3, 2, 1, 2, 2], [0.2, 0.1, 0.3, 0.2, 0.1, 0, 0.2, 0.1]));
    const found = findRegressions(after, before);
    expect(found.map((r) => r.metric).sort()).toEqual(['codeMatch', 'failRate', 'score']);
    const score = found.find((r) => r.metric === 'score')!;
    expect(score.current).toBeLessThan(score.previousLo);
    expect(describeRegression(score)).toMatch(/^REGRESSION m · interactive · score: 1\.875 vs 4\.625/);
  });

  it('does not flag a run within the interval, or one that improved', () => {
    expect(findRegressions(summarize(rows('m', [5, 4, 5, 5, 4, 5, 5, 4], [1, 1, 1, 0.9, 1, 1, 0.9, 1])), before)).toEqual([]);
    expect(findRegressions(summarize(rows('m', [5, 5, 5, 5, 5, 5, 5, 5], [1, 1, 1, 1, 1, 1, 1, 1])), before)).toEqual([]);
  });

  it('ignores groups the previous run did not have', () => {
    expect(findRegressions(summarize(rows('other', [1, 1, 1], [0, 0, 0])), before)).toEqual([]);
  });
});
