// The sleep between tries of an outage wait: 5 s doubling to 2 minutes by default, never past the deadline; a run
// may start it shorter (outageFirstRetrySeconds, what the outage tests use) and it doubles the same way.
import { describe, expect, it } from 'vitest';
import { DEFAULT_OUTAGE_FIRST_RETRY_MS, outageBackoffMs } from '../../domain/episode/outageWait';

describe('outageBackoffMs', () => {
  it('doubles from 5 s to at most 2 minutes by default', () => {
    expect(DEFAULT_OUTAGE_FIRST_RETRY_MS).toBe(5_000);
    const hour = 3_600_000;
    expect([0, 1, 2, 3, 4, 5, 20].map((t) => outageBackoffMs(t, hour))).toEqual([5_000, 10_000, 20_000, 40_000, 80_000, 120_000, 120_000]);
  });

  it('never sleeps past the deadline, nor less than nothing', () => {
    expect(outageBackoffMs(3, 7_000)).toBe(7_000);
    expect(outageBackoffMs(0, -5)).toBe(0);
  });

  it("starts from the run's first retry when it sets one, doubling the same way", () => {
    expect([0, 1, 2].map((t) => outageBackoffMs(t, 60_000, 500))).toEqual([500, 1_000, 2_000]);
    expect(outageBackoffMs(12, 600_000, 500)).toBe(120_000);
  });
});
