// Reference descriptions generated for methods whose source has none (CruxEval): `pau dataset describe`
// asks a model to describe the code, has a coder write code from that description, and keeps the
// description only when the code matches the original on held-out inputs. Every attempt is a row with
// its provenance; the accepted ones are the methods' reference descriptions (platform/dataset/referenceDescriptions.ts).
import { doublePrecision, index, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import type { JsonObject } from '../../domain/common/jsonDocument';
import { methods } from './datasets';

export const referenceDescriptions = pgTable(
  'reference_descriptions',
  {
    methodId: text('method_id')
      .notNull()
      .references(() => methods.id, { onDelete: 'cascade' }),
    /** The model that wrote the description. */
    model: text('model').notNull(),
    /** Version of the describe prompt (domain/describe/prompts.ts). */
    promptVersion: text('prompt_version').notNull(),
    description: text('description').notNull(),
    coderModel: text('coder_model').notNull(),
    /** Code match of the coder's code against the original on the method's held-out inputs; null without code. */
    codeMatch: doublePrecision('code_match'),
    threshold: doublePrecision('threshold').notNull(),
    status: text('status', { enum: ['accepted', 'rejected'] }).notNull(),
    /** Why it was rejected (below the threshold, no code, method excluded from code match). */
    reason: text('reason'),
    generatedCode: text('generated_code'),
    /** The held-out inputs it was checked on, and the describe run (workflow id). */
    detail: jsonb('detail').$type<JsonObject>(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.methodId, t.model, t.promptVersion] }), index('reference_descriptions_status_idx').on(t.methodId, t.status)],
);
