// The range a numeric setting may take: one declaration per setting, read by the CLI option that sets it
// (its check, exit 2, and its `--help`) and by the check where the value is used (a run's config, an
// episode's input, a trainer spec), so a value that skips the CLI (a schedule, an API caller) is refused
// too. A value out of every range a real run can use (a call budget of 10^9) would otherwise be accepted and
// found only when a worker chokes on it. Pure.
import { z } from 'zod';

export interface NumberRange {
  min: number;
  max: number;
  /** Whole numbers only. */
  int: boolean;
  /** The minimum itself is refused (a learning rate above 0). */
  minExclusive?: boolean;
  /** Said after the numbers (`seconds`). */
  unit?: string;
}

/** Whole numbers from `min` to `max`, both included. */
export const wholeRange = (min: number, max: number, unit?: string): NumberRange => ({ min, max, int: true, ...(unit ? { unit } : {}) });

/** Any number from `min` (or above it, with minExclusive) to `max`. */
export const realRange = (min: number, max: number, o: { minExclusive?: boolean } = {}): NumberRange => ({
  min,
  max,
  int: false,
  ...(o.minExclusive ? { minExclusive: true } : {}),
});

/** A TCP port (0: any free one, where a listener takes it). */
export const PORT_RANGE = wholeRange(0, 65_535);

/** `1 to 200`, `above 0 up to 1`, `0 to 604800 seconds`: the range as `--help` shows it. */
export function rangeText(r: NumberRange): string {
  return `${r.minExclusive ? `above ${r.min} up to` : `${r.min} to`} ${r.max}${r.unit ? ` ${r.unit}` : ''}`;
}

/** `a whole number from 1 to 200`, `a number above 0 up to 1`: what a value out of the range is told. */
export function rangeRule(r: NumberRange): string {
  const what = r.int ? 'a whole number' : 'a number';
  return `${what} ${r.minExclusive ? `above ${r.min} up to` : `from ${r.min} to`} ${r.max}${r.unit ? ` ${r.unit}` : ''}`;
}

/** Whether `x` is in the range. */
export function inRange(x: number, r: NumberRange): boolean {
  return Number.isFinite(x) && (!r.int || Number.isInteger(x)) && (r.minExclusive ? x > r.min : x >= r.min) && x <= r.max;
}

/** Where a schema's range is kept, so the CLI's help reads it back from the option's schema. */
export const numberRanges = z.registry<NumberRange>();

/**
 * The schema of a number in the range, with one message for every way to miss it (not a number, a
 * fraction where a whole number is needed, too small, too big): `must be a whole number from 1 to 200, not
 * 1000000000`. Registered in numberRanges.
 */
export function rangeSchema(r: NumberRange): z.ZodNumber {
  const error = (iss: { input?: unknown }) => {
    const got = iss.input;
    return `must be ${rangeRule(r)}${typeof got === 'number' && !Number.isNaN(got) ? `, not ${got}` : ''}`;
  };
  // The first check a value fails ends the checks: one message, not the same message twice.
  const p = { error, abort: true };
  let s = z.number({ error });
  if (r.int) s = s.int(p);
  s = r.minExclusive ? s.gt(r.min, p) : s.min(r.min, p);
  return s.max(r.max, p).register(numberRanges, r);
}

/**
 * The check of a config's ranged settings from one range map (the one its CLI flags read): a loose object with
 * a number held to its range per key, absent allowed except for the `required` keys.
 */
export function rangesSchema<K extends string>(ranges: Record<K, NumberRange>, required: readonly NoInfer<K>[] = []) {
  const shape = Object.fromEntries(
    (Object.entries(ranges) as [K, NumberRange][]).map(([k, r]) => [k, required.includes(k) ? rangeSchema(r) : rangeSchema(r).optional()]),
  );
  return z.looseObject(shape as Record<K, z.ZodNumber | z.ZodOptional<z.ZodNumber>>);
}

/** `budgets.maxCalls must be a whole number from 1 to 200, not 1000000000`, or null when `value` is in range (or absent). */
export function rangeProblem(what: string, value: number | undefined, r: NumberRange): string | null {
  if (value === undefined || inRange(value, r)) return null;
  return `${what} must be ${rangeRule(r)}, not ${value}`;
}

/** A schema's issues as `path message` lines (`budgets.maxCalls must be ...`); empty when `value` fits. */
export function schemaProblems(schema: z.ZodType, value: unknown): string[] {
  const r = schema.safeParse(value);
  return r.success ? [] : r.error.issues.map((i) => (i.path.length > 0 ? `${i.path.join('.')} ${i.message}` : i.message));
}
