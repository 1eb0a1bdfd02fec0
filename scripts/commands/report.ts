// `pau report <runId> [--compare <runId>] [--judge-model M] [--out DIR]`: writes reports/<runId>.html
// (static, opens without a server) and .json, and prints the headline table. `--latest`: the newest
// benchmark run.
import { z } from 'zod';
import { closeSharedDb, getDb } from '../../db/client';
import { latestRunId } from '../../activities/report/reportRows';
import { ReportError, writeReport } from '../../activities/report/writeReport';
import { parseCommandArgs, UsageError } from '../lib/args';

export const usage = 'pau report <runId>|--latest [--compare <runId>] [--judge-model <model>] [--out <dir>]';

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    argv,
    { compare: { type: 'string' }, 'judge-model': { type: 'string' }, out: { type: 'string' }, latest: { type: 'boolean' } },
    z.object({ compare: z.string().min(1).optional(), 'judge-model': z.string().min(1).optional(), out: z.string().min(1).optional(), latest: z.boolean().optional() }),
  );
  if (positionals.length > 1) throw new UsageError(`one run id, got ${positionals.length}`);
  try {
    const runId = positionals[0] ?? (values.latest ? await latestRunId(getDb()) : undefined);
    if (!runId) throw new UsageError(values.latest ? 'no benchmark run in the database' : 'which run? give a run id or --latest');
    const r = await writeReport({ runId, compare: values.compare, judgeModel: values['judge-model'], outDir: values.out });
    console.log(r.headline);
    for (const n of r.document.notes) console.log(`note: ${n}`);
    console.log(`\nreport: ${r.htmlPath}\njson:   ${r.jsonPath}`);
    return 0;
  } catch (err) {
    if (err instanceof ReportError) {
      console.error(`pau report: ${err.message}`);
      return 1;
    }
    throw err;
  } finally {
    await closeSharedDb();
  }
}
