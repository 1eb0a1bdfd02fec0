// The read boundary of jsonb columns: a stored document is parsed with the domain schema its column's
// `$type<>()` comes from, so a row that does not fit fails here, naming where it is, not later as a
// wrong field deep in a report or a workflow.
import type { z } from 'zod';

/** Where a stored value comes from: `table.column` and the row's key. */
export interface JsonbWhere {
  table: string;
  column: string;
  row: string;
}

/** A stored jsonb value that does not fit its schema (a bug or a hand-edited row: retrying cannot help). */
export class StoredJsonError extends Error {
  override name = 'StoredJsonError';
  constructor(
    readonly where: JsonbWhere,
    readonly issues: string,
  ) {
    super(`${where.table}.${where.column} of row ${where.row} does not fit its schema: ${issues}`);
  }
}

function describeIssues(err: z.ZodError): string {
  return err.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') : '(value)'}: ${i.message}`)
    .join('; ');
}

/** `value` parsed by `schema`; throws StoredJsonError naming table, column and row when it does not fit. */
export function parseJsonb<S extends z.ZodType>(schema: S, value: unknown, where: JsonbWhere): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw new StoredJsonError(where, describeIssues(r.error));
  return r.data;
}
