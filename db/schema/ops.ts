// Operator checks: one row per part of a `doctor` workflow run.
import { boolean, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import type { JsonObject } from '../../domain/common/jsonDocument';

export const doctorChecks = pgTable(
  'doctor_checks',
  {
    workflowId: text('workflow_id').notNull(),
    part: text('part').notNull(),
    ok: boolean('ok').notNull(),
    detail: jsonb('detail').$type<JsonObject>(),
    checkedAt: timestamp('checked_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.workflowId, t.part] })],
);
