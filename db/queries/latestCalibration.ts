// The latest completed calibration run of a dataset split: what a benchmark report on that split shows
// (benchmarkReportData.ts).
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../client';
import { runs } from '../schema/runs';
import { parseRunSummary } from '../runDocuments';
import type { CalibrationSummary } from '../../domain/calibration/summarize';

export async function latestCalibration(db: Db, dataset: string, split: string): Promise<{ runId: string; summary: CalibrationSummary } | undefined> {
  const [r] = await db
    .select({ id: runs.id, summary: runs.summary })
    .from(runs)
    .where(
      and(
        eq(runs.kind, 'calibration'),
        eq(runs.status, 'completed'),
        sql`${runs.config}->>'dataset' = ${dataset}`,
        sql`${runs.config}->>'split' = ${split}`,
        sql`${runs.summary} ? 'calibration'`,
      ),
    )
    .orderBy(desc(runs.finishedAt))
    .limit(1);
  const calibration = r && parseRunSummary('calibration', r.summary, r.id)?.calibration;
  return r && calibration ? { runId: r.id, summary: calibration } : undefined;
}
