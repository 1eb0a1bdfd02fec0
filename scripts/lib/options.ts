// A verb's options declared once: each option's zod schema (its meaning and default), short flag and
// help text. From that one declaration come the parseArgs config (string or boolean, by the schema), the
// zod object that validates the parsed values, and the options part of the usage text.
import type { ParseArgsConfig } from 'node:util';
import { z } from 'zod';

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
}

/** The schema's own type under optional/default/nullable wrappers: 'boolean' is a flag, 'array' repeats. */
function baseType(schema: z.ZodType): string {
  let def = schema._zod.def as { type: string; innerType?: z.ZodType };
  while ((def.type === 'optional' || def.type === 'default' || def.type === 'nullable' || def.type === 'prefault') && def.innerType) {
    def = def.innerType._zod.def as typeof def;
  }
  return def.type;
}

export function defineOptions<T extends OptionSpecs>(specs: T): CommandOptions<T> {
  const parseArgs: NonNullable<ParseArgsConfig['options']> = {};
  const shape: Record<string, z.ZodType> = {};
  const usage: string[] = [];
  for (const [name, o] of Object.entries(specs)) {
    const spec: OptionSpec = o instanceof z.ZodType ? { schema: o } : o;
    const type = baseType(spec.schema);
    const flag = type === 'boolean';
    parseArgs[name] = { type: flag ? 'boolean' : 'string', ...(type === 'array' ? { multiple: true } : {}), ...(spec.short ? { short: spec.short } : {}) };
    shape[name] = spec.schema;
    const word = flag ? `--${name}` : `--${name} ${spec.arg ?? name.toUpperCase().replace(/-/g, '_')}${type === 'array' ? '...' : ''}`;
    usage.push(spec.schema.safeParse(undefined).success ? `[${word}]` : word);
  }
  return { parseArgs, schema: z.object(shape) as CommandOptions<T>['schema'], usage: usage.join(' ') };
}
