// The benchmark's live progress line (scripts/client/bench.ts): episodes, and with a judge the completed
// episodes judged, so the line keeps moving (and its ETA means something) while judging outlasts the episodes.
import { describe, expect, it } from 'vitest';
import { runProgressOf } from '../fixtures/runProgress';
import { progressLine } from '../../scripts/client/bench';

const base = runProgressOf();

describe('the benchmark progress line', () => {
  it('without a judge: episodes only, ETA 0:00 once they have all ended', () => {
    const line = progressLine(base, 0, 60_000);
    expect(line).toContain('10/10 episodes');
    expect(line).not.toContain('judged');
    expect(line).toMatch(/ETA 0:00$/);
  });

  it('with a judge: the judged count, and an ETA over the judging still to do after the episodes ended', () => {
    // 10 episodes and 5 judgments in 60 s: 5 judgments left at 4 s per unit of work.
    const line = progressLine({ ...base, judging: { judged: 5, completed: 10 } }, 0, 60_000);
    expect(line).toContain('judged 5/10');
    expect(line).toMatch(/ETA 0:20$/);
    expect(progressLine({ ...base, judging: { judged: 10, completed: 10 } }, 0, 60_000)).toMatch(/judged 10\/10 .*ETA 0:00$/);
  });

  it('mid-run: episodes and judgments left both count', () => {
    // 4 episodes and 2 judgments done in 60 s (10 s a unit); 6 episodes and 2 judgments left.
    const line = progressLine({ ...base, done: 4, running: 2, judging: { judged: 2, completed: 4 } }, 0, 60_000);
    expect(line).toContain('4/10 episodes');
    expect(line).toMatch(/ETA 1:20$/);
  });
});
