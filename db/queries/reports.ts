// Stored reports (table `reports`, every kind) read back: a run's latest, or one by id. The produceReport
// activity writes them; the CLI writes them out as files (scripts/client/report.ts).
import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '../client';
import { reports } from '../schema/reports';
import type { ReportKind } from '../../domain/report/reportKinds';

export type ReportRow = typeof reports.$inferSelect;

/** The latest stored report of a run (optionally of one kind, or the one compared with `compare`). */
export async function latestReport(db: Db, runId: string, compare?: string, kind?: ReportKind): Promise<ReportRow | undefined> {
  const [row] = await db
    .select()
    .from(reports)
    .where(
      and(
        eq(reports.runId, runId),
        compare === undefined ? undefined : eq(reports.compareRunId, compare),
        kind === undefined ? undefined : eq(reports.kind, kind),
      ),
    )
    .orderBy(desc(reports.createdAt), desc(reports.id))
    .limit(1);
  return row;
}

export async function reportById(db: Db, id: number): Promise<ReportRow | undefined> {
  const [row] = await db.select().from(reports).where(eq(reports.id, id)).limit(1);
  return row;
}
