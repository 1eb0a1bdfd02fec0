// Reports of runs, produced by the produceReport activity on every path (benchmark runs, scheduled runs,
// `pau report`, `pau judge`) and stored here, so any host can fetch them; the CLI writes the files from here.
import { bigserial, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import type { ReportDocument } from '../../domain/report/renderHtml';
import { runs } from './runs';

export const reports = pgTable(
  'reports',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    runId: text('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    /** The run the deltas (and, for scheduled runs, the regressions) are against. */
    compareRunId: text('compare_run_id'),
    /** The judge whose judgments the report shows (null: nothing judged). */
    judgeModel: text('judge_model'),
    html: text('html').notNull(),
    /** The report document (domain/report/renderHtml.ts ReportDocument, plus regressions). */
    json: jsonb('json').$type<ReportDocument>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('reports_run_created_idx').on(t.runId, t.createdAt)],
);
