// Schemas for JSON documents stored in jsonb columns (db/schema/*.ts `$type<>()`, read through db/jsonb.ts).
import { z } from 'zod';

/** A JSON object whose keys the reader looks up one by one (meta, details, metrics). */
export const jsonObjectSchema = z.record(z.string(), z.unknown());
export type JsonObject = z.infer<typeof jsonObjectSchema>;

/**
 * A stored document typed as `T` and checked at its envelope: the fields in `shape` (the ones every stored
 * version has and readers rely on) are validated; the rest passes as written. For large documents whose
 * type is a TypeScript interface (a report, a build summary) and whose older rows lack newer optional fields.
 */
export function documentSchema<T>(shape: z.ZodRawShape): z.ZodType<T> {
  // The one place the envelope check stands in for the interface; every reader goes through here.
  return z.looseObject(shape).transform((v) => v as T);
}

/**
 * A column whose rows hold one of several documents (a run's config per kind, a step's call per step kind):
 * typed as a JSON object; a reader parses it with the schema of the kind it holds.
 */
export const anyDocumentSchema = z.custom<object>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), 'a JSON object');
export type AnyDocument = z.infer<typeof anyDocumentSchema>;
