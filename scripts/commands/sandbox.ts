// `pau sandbox exec --file F.py --entry NAME --calls '<JSON>' [--coverage] [--timeout-ms N] [--memory-mb N]`
// Runs a method on calls in the sandbox and prints ONE JSON object {"mode", "results", "coverage"}.
// Exit 0 even when calls fail; 2 for a bad command line (UsageError); 1 when the sandbox cannot run.
import fs from 'node:fs';
import { z } from 'zod';
import { SandboxPool, SandboxUnavailable } from '../../platform/sandbox/pool';
import { callSpecSchema } from '../../domain/sandbox/schemas';
import { parseCommandArgs, UsageError } from '../lib/args';
import { sandboxOptions } from '../options/sandbox';

const callsSchema = z.array(callSpecSchema);

export async function run(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'exec') throw new UsageError(sub ? `unknown subcommand ${JSON.stringify(sub)}` : 'missing subcommand exec');
  const { values, positionals } = parseCommandArgs(rest, sandboxOptions);
  if (positionals.length) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
  let source: string;
  try {
    source = fs.readFileSync(values.file, 'utf8');
  } catch (err) {
    throw new UsageError(`--file: cannot read ${values.file}: ${(err as Error).message}`);
  }
  let calls: z.infer<typeof callsSchema>;
  try {
    calls = callsSchema.parse(JSON.parse(values.calls));
  } catch (err) {
    throw new UsageError(
      `--calls: must be a JSON array whose elements are arrays of Python-literal strings or one string ` +
        `with the whole argument list (${(err as Error).message.split('\n')[0]})`,
    );
  }
  const pool = new SandboxPool({ size: 1, ...(values.mode ? { mode: values.mode } : {}) });
  try {
    const result = await pool.runBatch({
      source,
      entry: values.entry,
      calls,
      coverage: values.coverage ?? false,
      limits: {
        ...(values['timeout-ms'] ? { timeoutMs: values['timeout-ms'] } : {}),
        ...(values['memory-mb'] ? { memoryMb: values['memory-mb'] } : {}),
      },
    });
    const coverage = result.coverage ? { lines: result.coverage.lines, branches: result.coverage.branches, detail: result.coverage } : null;
    process.stdout.write(
      `${JSON.stringify({
        mode: result.mode,
        results: result.results,
        coverage,
        ...(result.sourceError ? { sourceError: result.sourceError } : {}),
        ...(result.coverageError ? { coverageError: result.coverageError } : {}),
      })}\n`,
    );
    return 0;
  } catch (err) {
    if (err instanceof SandboxUnavailable) {
      process.stderr.write(`pau sandbox: the sandbox cannot run: ${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    await pool.close();
  }
}
