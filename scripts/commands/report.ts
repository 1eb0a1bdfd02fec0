import { closeSharedDb, getDb } from '../../db/client';
import { latestRunId } from '../../db/queries/reportRows';
import { ReportError } from '../../domain/report/reportError';
import { produceReportFiles, storedReportFiles } from '../client/report';
import { parseCommandArgs, UsageError } from '../lib/args';
import { reportOptions, reportShowOptions } from '../options/report';
import { requireRun } from '../lib/notFound';

/** `report show RUN`: the run's latest stored report of any kind (benchmark, sft, grpo), never produced here. */
async function show(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, reportShowOptions);
  if (positionals.length !== 1) throw new UsageError(`report show takes one run id, got ${positionals.length}`);
  const runId = positionals[0]!;
  try {
    await requireRun(getDb(), runId);
    const r = await storedReportFiles(getDb(), runId, values.kind, values.out);
    if (!r) {
      console.error(
        `pau report show: run ${runId} has no stored ${values.kind ? `${values.kind} ` : ''}report (produce one: pau report ${runId}, pau sft report, pau grpo report)`,
      );
      return 1;
    }
    console.log(`${r.kind} report ${r.reportId} of ${runId}`);
    console.log(r.headline);
    if (r.kind === 'benchmark') for (const n of r.document.notes) console.log(`note: ${n}`);
    console.log(`\nreport: ${r.htmlPath}\njson:   ${r.jsonPath}${r.transcriptsDir ? `\nepisode transcripts: ${r.transcriptsDir}/` : ''}`);
    return 0;
  } finally {
    await closeSharedDb();
  }
}

export async function run(argv: string[]): Promise<number> {
  if (argv[0] === 'show') return show(argv.slice(1));
  const { values, positionals } = parseCommandArgs(argv, reportOptions);
  if (positionals.length > 1) throw new UsageError(`one run id, got ${positionals.length}`);
  try {
    // `--compare A,B`: run A beside run B (no run id before it); `RUN --compare B`: the same with A = RUN.
    const pair = values.compare?.includes(',') ? values.compare.split(',') : undefined;
    if (pair && (pair.length !== 2 || pair.some((x) => x.length === 0)))
      throw new UsageError(`--compare A,B takes two run ids, got ${JSON.stringify(values.compare)}`);
    if (pair && (positionals.length > 0 || values.latest)) throw new UsageError('--compare A,B names both runs: give no other run id');
    const runId = pair?.[0] ?? positionals[0] ?? (values.latest ? await latestRunId(getDb()) : undefined);
    const compare = pair?.[1] ?? values.compare;
    if (!runId) throw new UsageError(values.latest ? 'no benchmark run in the database' : 'which run? give a run id or --latest');
    if (compare === runId) throw new UsageError(`a run compared with itself (${runId})`);
    for (const id of [runId, ...(compare ? [compare] : [])]) await requireRun(getDb(), id);
    const r = await produceReportFiles(
      getDb(),
      { runId, ...(compare ? { compare } : {}), ...(values['judge-model'] ? { judgeModel: values['judge-model'] } : {}) },
      values.out,
    );
    console.log(r.headline);
    for (const n of r.document.notes) console.log(`note: ${n}`);
    console.log(`\nreport: ${r.htmlPath}\njson:   ${r.jsonPath}${r.transcriptsDir ? `\nepisode transcripts: ${r.transcriptsDir}/` : ''}`);
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
