// Command-line arguments: node's parseArgs for the syntax, zod for the meaning. Either failure becomes a
// UsageError with a specific message; the dispatcher prints it with the verb's usage and exits 2.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { z } from 'zod';

export class UsageError extends Error {
  override name = 'UsageError';
}

export function parseCommandArgs<S extends z.ZodType>(
  argv: string[],
  options: NonNullable<ParseArgsConfig['options']>,
  schema: S,
): { values: z.infer<S>; positionals: string[] } {
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true }) as typeof parsed;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const result = schema.safeParse(parsed.values);
  if (!result.success) {
    throw new UsageError(
      result.error.issues.map((i) => `--${i.path.join('.') || '?'}: ${i.message}`).join('; '),
    );
  }
  return { values: result.data, positionals: parsed.positionals };
}
