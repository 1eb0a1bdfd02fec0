// Command-line arguments: node's parseArgs for the syntax, zod for the meaning, both from one declaration
// per verb (scripts/lib/options.ts). Either failure becomes a
// UsageError with a specific message; the dispatcher prints it with the verb's usage and exits 2.
import { parseArgs } from 'node:util';
import type { z } from 'zod';
import type { CommandOptions, OptionSpecs } from './options';

export { defineOptions } from './options';

export class UsageError extends Error {
  override name = 'UsageError';
}

/** Parses a verb's arguments against its one options declaration (defineOptions). */
export function parseCommandArgs<T extends OptionSpecs>(
  argv: string[],
  { parseArgs: options, schema }: CommandOptions<T>,
): { values: z.infer<CommandOptions<T>['schema']>; positionals: string[] } {
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true }) as typeof parsed;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const result = schema.safeParse(parsed.values);
  if (!result.success) {
    throw new UsageError(result.error.issues.map((i) => `--${i.path.join('.') || '?'}: ${i.message}`).join('; '));
  }
  return { values: result.data, positionals: parsed.positionals };
}
