// For scheduled benchmarks: the previous run of the same schedule, and the run's report compared with
// it, regressions flagged (in the report, the run's summary row and the workflow result).
import fs from 'node:fs';
import { and, desc, eq, lt, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { runs } from '../../db/schema/index';
import { renderHtml } from '../../domain/report/renderHtml';
import { buildReport, writeReport } from '../report/writeReport';
import { describeRegression, findRegressions } from '../../domain/report/regressions';

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
          eq(runs.status, 'completed'),
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

export interface ScheduledReport {
  htmlPath: string;
  jsonPath: string;
  comparedWith: string | null;
  regressions: string[];
}

export function makeWriteScheduledReport(db: () => Db, outDir?: string) {
  return async function writeScheduledReport(input: { runId: string; previousRunId: string | null }): Promise<ScheduledReport> {
    const d = db();
    const result = await writeReport({ runId: input.runId, db: d, ...(input.previousRunId ? { compare: input.previousRunId } : {}), ...(outDir ? { outDir } : {}) });
    let regressions: string[] = [];
    if (input.previousRunId) {
      const judge = result.document.compare?.judgeModel;
      const previous = await buildReport({ runId: input.previousRunId, db: d, ...(judge ? { judgeModel: judge } : {}) });
      regressions = findRegressions(result.document.summary, previous.summary).map(describeRegression);
      const doc = result.document;
      doc.notes.unshift(...(regressions.length > 0 ? regressions : [`No regression beyond the 95% intervals of ${input.previousRunId}.`]));
      fs.writeFileSync(result.htmlPath, renderHtml(doc));
      fs.writeFileSync(result.jsonPath, JSON.stringify({ ...doc, regressions }, null, 2) + '\n');
    }
    const patch = { report: result.htmlPath, comparedWith: input.previousRunId, regressions };
    await d
      .update(runs)
      .set({ summary: sql`coalesce(${runs.summary}, '{}'::jsonb) || ${JSON.stringify(patch)}::jsonb`, updatedAt: new Date() })
      .where(eq(runs.id, input.runId));
    return { htmlPath: result.htmlPath, jsonPath: result.jsonPath, comparedWith: input.previousRunId, regressions };
  };
}
