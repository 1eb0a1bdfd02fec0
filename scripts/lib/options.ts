// A verb's options declared once: each option's zod schema (its meaning and default), short flag and
// help text. From that one declaration come the parseArgs config (string or boolean, by the schema), the
// zod object that validates the parsed values, the options part of the usage text and the option list of
// the verb's `--help` (helpText). Each verb's forms and tables live in scripts/options/<verb>.ts, which load
// nothing but zod and domain constants, so `--help` needs no stack and a pure test reads every table.
import type { ParseArgsConfig } from 'node:util';
import { z } from 'zod';
import { type NumberRange, numberRanges, rangeSchema, rangeText } from '../../domain/common/numberRange';

export interface OptionSpec<S extends z.ZodType = z.ZodType> {
  schema: S;
  short?: string;
  /** The value's placeholder in the usage text (default: the name in capitals); none for booleans. */
  arg?: string;
  help?: string;
}

/** An option: its schema alone, or the schema with a short flag, placeholder and help text. */
export type OptionSpecs = Record<string, z.ZodType | OptionSpec>;

type SchemaOf<O> = O extends OptionSpec<infer S> ? S : O;

export interface CommandOptions<T extends OptionSpecs> {
  parseArgs: NonNullable<ParseArgsConfig['options']>;
  schema: z.ZodObject<{ [K in keyof T]: SchemaOf<T[K]> }>;
  /** `--required ARG [--name ARG] [--flag]` for each option, in declaration order. */
  usage: string;
  /** Per option, in declaration order: its flag (with its placeholder), its help, its range and its default as shown. */
  entries: { name: string; flag: string; help: string; range: string; default: string }[];
}

/** One way to call a verb: the words before the options (`pau sft build`, `pau runs show RUN_ID`) and the table it parses. */
export interface VerbForm {
  /** The command line's words before the options; with no table, the whole line. */
  words: string;
  options?: CommandOptions<OptionSpecs>;
}

/** A verb's forms and what a reader needs beside them (positional arguments, an action's one-line meaning). */
export interface VerbUsage {
  forms: VerbForm[];
  notes?: string[];
}

/** The usage lines: each form with its options' usage, as the dispatcher prints it under a usage error. */
export function usageText(v: VerbUsage): string {
  return v.forms.map((f, i) => `${i === 0 ? '' : '       '}${f.words}${f.options?.usage ? ` ${f.options.usage}` : ''}`).join('\n');
}

/** `pau <verb> --help`: the usage lines, the notes, then each form's options with a line each. */
export function helpText(v: VerbUsage): string {
  const out = [`usage: ${usageText(v)}`, ...(v.notes ?? []).map((n) => `  ${n}`)];
  for (const f of v.forms) {
    const entries = f.options?.entries ?? [];
    if (entries.length === 0) continue;
    const width = Math.min(34, Math.max(...entries.map((e) => e.flag.length)));
    out.push('', `${f.words} options:`);
    for (const e of entries) out.push(`  ${e.flag.padEnd(width)}  ${e.help}${e.range}${e.default}`);
  }
  return out.join('\n');
}

/** A default as the help shows it: lists joined with commas, nothing for an option without one. */
function defaultText(schema: z.ZodType): string {
  const r = schema.safeParse(undefined);
  if (!r.success || r.data === undefined || r.data === false) return '';
  return ` (default ${Array.isArray(r.data) ? r.data.join(',') : String(r.data)})`;
}

/**
 * A numeric option: its text read as a number (an empty one is not 0) and held to `r`, which the option's
 * `--help` shows; out of it, exit 2 naming the flag and the range (`--max-calls: must be a whole number from
 * 1 to 200, not 1000000000`). The one way a verb takes a number: the range is the one the value is checked
 * against again where it is used (domain/common/numberRange.ts).
 */
export function numberOption(r: NumberRange) {
  return z.preprocess((v) => (typeof v === 'string' ? (v.trim() === '' ? Number.NaN : Number(v)) : v), rangeSchema(r));
}

/** The range of a numeric option's schema (under optional/default wrappers and a parsing pipe), if it has one. */
export function rangeOf(schema: z.ZodType): NumberRange | undefined {
  let s: z.ZodType = schema;
  for (;;) {
    const def = s._zod.def as { type: string; innerType?: z.ZodType; out?: z.ZodType };
    if ((def.type === 'optional' || def.type === 'default' || def.type === 'nullable' || def.type === 'prefault') && def.innerType) s = def.innerType;
    else if (def.type === 'pipe' && def.out) s = def.out;
    else return numberRanges.get(s);
  }
}

/** The schema's own definition under optional/default/nullable wrappers: type 'boolean' is a flag, 'array' repeats. */
function baseDef(schema: z.ZodType): { type: string; entries?: Record<string, string | number> } {
  let def = schema._zod.def as { type: string; innerType?: z.ZodType; entries?: Record<string, string | number> };
  while ((def.type === 'optional' || def.type === 'default' || def.type === 'nullable' || def.type === 'prefault') && def.innerType) {
    def = def.innerType._zod.def as typeof def;
  }
  return def;
}

export function defineOptions<T extends OptionSpecs>(specs: T): CommandOptions<T> {
  const parseArgs: NonNullable<ParseArgsConfig['options']> = {};
  const shape: Record<string, z.ZodType> = {};
  const usage: string[] = [];
  const entries: CommandOptions<T>['entries'] = [];
  for (const [name, o] of Object.entries(specs)) {
    const spec: OptionSpec = o instanceof z.ZodType ? { schema: o } : o;
    const def = baseDef(spec.schema);
    const type = def.type;
    const flag = type === 'boolean';
    parseArgs[name] = { type: flag ? 'boolean' : 'string', ...(type === 'array' ? { multiple: true } : {}), ...(spec.short ? { short: spec.short } : {}) };
    shape[name] = spec.schema;
    const word = flag
      ? `--${name}`
      : `--${name} ${spec.arg ?? (def.entries ? Object.values(def.entries).join('|') : name.toUpperCase().replace(/-/g, '_'))}${type === 'array' ? '...' : ''}`;
    usage.push(spec.schema.safeParse(undefined).success ? `[${word}]` : word);
    const range = rangeOf(spec.schema);
    entries.push({
      name,
      flag: `${spec.short ? `-${spec.short}, ` : ''}${word}`,
      help: spec.help ?? '',
      range: range ? ` [${rangeText(range)}]` : '',
      default: defaultText(spec.schema),
    });
  }
  return { parseArgs, schema: z.object(shape) as CommandOptions<T>['schema'], usage: usage.join(' '), entries };
}
