// `pau export inspect <runId> [--out DIR]`: a benchmark run as inspect_ai eval logs, one JSON log per
// (model, setting), for `inspect view` and inspect's log API (platform/export/inspectExport.ts; the format:
// docs/inspect.md). Postgres only. A run that is unknown, no benchmark or still running: one line, exit 2
// (an unknown one through NotFoundError, as every verb says it).
import { closeSharedDb, getDb } from '../../db/client';
import { defaultInspectDir, exportInspect, InspectExportError } from '../../platform/export/inspectExport';
import { inspectVersion, readyInspectBin } from '../../platform/export/inspectVenv';
import { parseCommandArgs, UsageError } from '../lib/args';
import { exportOptions } from '../options/export';
import { requireRun } from '../lib/notFound';

export async function run(argv: string[]): Promise<number> {
  const [format, ...rest] = argv;
  if (format !== 'inspect') throw new UsageError(format ? `unknown export format ${JSON.stringify(format)} (known: inspect)` : 'which format? inspect');
  const { values, positionals } = parseCommandArgs(rest, exportOptions);
  if (positionals.length !== 1) throw new UsageError(`one run id, got ${positionals.length}`);
  const runId = positionals[0]!;
  try {
    await requireRun(getDb(), runId);
    const r = await exportInspect(getDb(), runId, values.out ?? defaultInspectDir(runId));
    for (const f of r.files) console.log(`${f.model} / ${f.setting}: ${f.samples} samples -> ${f.path}`);
    console.log(`exported ${r.episodes} episodes of ${runId} in ${(r.ms / 1000).toFixed(2)} s to ${r.dir}`);
    const bin = readyInspectBin();
    console.log(
      bin
        ? `view them: ${bin} view --log-dir ${r.dir}`
        : `view them: inspect view --log-dir ${r.dir} (inspect_ai ${inspectVersion()}; npm run setup installs it in the shared cache)`,
    );
    return 0;
  } catch (err) {
    if (err instanceof InspectExportError) {
      console.error(`pau export: ${err.message}`);
      return 2;
    }
    throw err;
  } finally {
    await closeSharedDb();
  }
}
