// Operator checks: one row per part of a `doctor` workflow run.
import { boolean, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

export const doctorChecks = pgTable(
  'doctor_checks',
  {
    workflowId: text('workflow_id').notNull(),
    part: text('part').notNull(),
    ok: boolean('ok').notNull(),
    detail: jsonb('detail'),
    checkedAt: timestamp('checked_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.workflowId, t.part] })],
);
