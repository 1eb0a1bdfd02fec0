// Reports on the client side: produced by the produceReport activity (stored in Postgres), written to
// files from there. `pau report` and `pau judge` run the activity's function in-process; `pau bench run`
// and `npm start` fetch the report the benchmark run produced.
import path from 'node:path';
import type { Db } from '../../db/client';
import { writeTranscriptPages } from './transcriptPages';
import { makeProduceReport, type ProduceReportInput } from '../../activities/report/produceReport';
import { latestReport, reportById, ReportError, writeReportFiles, type ReportFiles } from '../../activities/report/writeReport';

/** Produces a report now (the same activity code, in this process) and writes its files. */
export async function produceReportFiles(db: Db, input: ProduceReportInput, outDir?: string): Promise<ReportFiles> {
  const { reportId } = await makeProduceReport(() => db)(input);
  const row = await reportById(db, reportId);
  if (!row) throw new ReportError(`report ${reportId} vanished`);
  return withTranscripts(db, writeReportFiles(row, outDir));
}

/** The run's latest stored report as files; produced now when the run has none yet. */
export async function fetchReportFiles(db: Db, runId: string, outDir?: string): Promise<ReportFiles> {
  const row = await latestReport(db, runId);
  return row ? withTranscripts(db, writeReportFiles(row, outDir)) : produceReportFiles(db, { runId }, outDir);
}

/** The episode transcript pages the report links to, written beside it. */
async function withTranscripts(db: Db, files: ReportFiles): Promise<ReportFiles> {
  const { dir } = await writeTranscriptPages(db, files.document.runId, path.dirname(files.htmlPath));
  return { ...files, transcriptsDir: dir };
}
