// For scheduled benchmarks: the previous run of the same schedule (its report, compared with it and
// regressions flagged, is produceReport's).
import { and, desc, eq, inArray, lt, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { runs } from '../../db/schema/runs';
import type { ProducedReport } from '../../domain/report/reportRequest';
import { makeProduceReport } from '../report/produceReport';

export function makePreviousScheduledRun(db: () => Db) {
  /** The latest completed benchmark run of `scheduleId` created before `runId`; null for the first. */
  return async function previousScheduledRun(input: { scheduleId: string; runId: string }): Promise<string | null> {
    const d = db();
    const [self] = await d.select({ createdAt: runs.createdAt }).from(runs).where(eq(runs.id, input.runId)).limit(1);
    const [prev] = await d
      .select({ id: runs.id })
      .from(runs)
      .where(
        and(
          eq(runs.kind, 'benchmark'),
          inArray(runs.status, ['completed', 'completed_with_failures']),
          ne(runs.id, input.runId),
          sql`${runs.config}->>'scheduleId' = ${input.scheduleId}`,
          ...(self ? [lt(runs.createdAt, self.createdAt)] : []),
        ),
      )
      .orderBy(desc(runs.createdAt))
      .limit(1);
    return prev?.id ?? null;
  };
}

/**
 * @deprecated The report step of scheduled runs recorded before reports moved to Postgres; kept registered
 * so those histories replay. It is produceReport with the previous run and regressions.
 */
export function makeWriteScheduledReport(db: () => Db) {
  const produceReport = makeProduceReport(db);
  return async function writeScheduledReport(input: { runId: string; previousRunId: string | null }): Promise<ProducedReport> {
    return produceReport({ runId: input.runId, ...(input.previousRunId ? { compare: input.previousRunId } : {}), regressions: true });
  };
}
