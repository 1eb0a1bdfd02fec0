// Reports of runs, produced by the produceReport activity on every path (benchmark runs, scheduled runs,
// SFT and GRPO runs at their end, `pau report`, `pau judge`, `grpo report --compare`) and stored here, so any
// host can fetch them; the CLI prints and writes the files from here (docs/cli.md, "Where reports live").
import { bigserial, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import type { AnyDocument } from '../../domain/common/jsonDocument';
import { runs } from './runs';

export const reports = pgTable(
  'reports',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    runId: text('run_id')
      .notNull()
      .references(() => runs.id, { onDelete: 'cascade' }),
    /** Which run the report is of (domain/report/reportKinds.ts): rows before migration 0010 are benchmark reports. */
    kind: text('kind').notNull().default('benchmark'),
    /** The run the deltas (and, for scheduled runs, the regressions) are against. */
    compareRunId: text('compare_run_id'),
    /** The judge whose judgments the report shows (null: nothing judged). */
    judgeModel: text('judge_model'),
    html: text('html').notNull(),
    /** The report as the terminal prints it (null on benchmark rows before 0010: the CLI derives the headline). */
    text: text('text'),
    /**
     * The report document by kind: a benchmark ReportDocument (plus regressions; reportDocumentSchema), an
     * SftReportDocument or a GrpoReportInput. A reader parses the schema of the row's kind.
     */
    json: jsonb('json').$type<AnyDocument>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('reports_run_created_idx').on(t.runId, t.createdAt), index('reports_run_kind_created_idx').on(t.runId, t.kind, t.createdAt)],
);
