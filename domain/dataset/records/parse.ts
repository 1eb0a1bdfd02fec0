// Reading records one at a time, so a malformed one is rejected with its reason and the rest still load.
import type { z } from 'zod';
import type { SourceName } from '../sources';
import type { Rejection } from '../types';

export function zodReason(err: z.ZodError): string {
  return err.issues.map((i) => `${i.path.join('.') || '(record)'}: ${i.message}`).join('; ');
}

/** Parses JSON lines; each bad line or bad record becomes a rejection keyed `line:<n>`. */
export function parseJsonLines<S extends z.ZodType>(source: SourceName, text: string, schema: S): { records: z.infer<S>[]; rejects: Rejection[]; raw: number } {
  const records: z.infer<S>[] = [];
  const rejects: Rejection[] = [];
  let raw = 0;
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    raw++;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      rejects.push({ source, sourceId: `line:${i + 1}`, reason: 'bad-json', detail: (err as Error).message });
      return;
    }
    const r = schema.safeParse(value);
    if (!r.success) {
      const id = typeof value === 'object' && value !== null ? idGuess(value as Record<string, unknown>) : undefined;
      rejects.push({ source, sourceId: id ?? `line:${i + 1}`, reason: 'malformed-record', detail: zodReason(r.error) });
      return;
    }
    records.push(r.data);
  });
  return { records, rejects, raw };
}

/** Validates the items of a JSON array one by one. */
export function parseJsonArray<S extends z.ZodType>(
  source: SourceName,
  text: string,
  schema: S,
): { records: { index: number; record: z.infer<S> }[]; rejects: Rejection[]; raw: number } {
  const data: unknown = JSON.parse(text);
  if (!Array.isArray(data)) throw new Error(`${source}: expected a JSON array`);
  const records: { index: number; record: z.infer<S> }[] = [];
  const rejects: Rejection[] = [];
  data.forEach((value, index) => {
    const r = schema.safeParse(value);
    if (r.success) records.push({ index, record: r.data });
    else
      rejects.push({ source, sourceId: idGuess(value as Record<string, unknown>) ?? `item:${index}`, reason: 'malformed-record', detail: zodReason(r.error) });
  });
  return { records, rejects, raw: data.length };
}

function idGuess(v: Record<string, unknown> | null): string | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const id = v.task_id ?? v.id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}
