// Reports on the client side: produced by the produceReport activity (stored in Postgres, every kind),
// written to files from there. `pau report`, `pau judge` and `pau grpo report --compare` run the activity's
// function in-process; `pau bench run`, `npm start`, `pau report show`, `pau sft report` and `pau grpo report`
// fetch the report the run produced.
import path from 'node:path';
import type { Db } from '../../db/client';
import type { ReportKind } from '../../domain/report/reportKinds';
import { writeTranscriptPages } from './transcriptPages';
import { type BenchmarkReportInput, makeProduceReport, type ProduceReportInput } from '../../activities/report/produceReport';
import { type BenchmarkReportFiles, latestReport, reportById, ReportError, type ReportFiles, writeReportFiles } from '../../activities/report/writeReport';

/** Produces a report now (the same activity code, in this process) and writes its files. */
export async function produceReportFiles(db: Db, input: BenchmarkReportInput, outDir?: string): Promise<BenchmarkReportFiles>;
export async function produceReportFiles(db: Db, input: ProduceReportInput, outDir?: string): Promise<ReportFiles>;
export async function produceReportFiles(db: Db, input: ProduceReportInput, outDir?: string): Promise<ReportFiles> {
  const { reportId } = await makeProduceReport(() => db)(input);
  const row = await reportById(db, reportId);
  if (!row) throw new ReportError(`report ${reportId} vanished`);
  return withTranscripts(db, writeReportFiles(row, outDir));
}

/** A benchmark run's latest stored report as files; produced now when the run has none yet. */
export async function fetchReportFiles(db: Db, runId: string, outDir?: string): Promise<ReportFiles> {
  const row = await latestReport(db, runId, undefined, 'benchmark');
  return row ? withTranscripts(db, writeReportFiles(row, outDir)) : produceReportFiles(db, { runId }, outDir);
}

/** The run's latest stored report (of `kind`, when given) as files, or undefined when it has none. */
export async function storedReportFiles(db: Db, runId: string, kind?: ReportKind, outDir?: string): Promise<ReportFiles | undefined> {
  const row = await latestReport(db, runId, undefined, kind);
  return row ? withTranscripts(db, writeReportFiles(row, outDir)) : undefined;
}

/** The episode transcript pages a benchmark report links to, written beside it. */
async function withTranscripts<F extends ReportFiles>(db: Db, files: F): Promise<F> {
  if (files.kind !== 'benchmark') return files;
  const { dir } = await writeTranscriptPages(db, files.document.runId, path.dirname(files.htmlPath));
  return { ...files, transcriptsDir: dir };
}

/**
 * A training run's report (`pau sft report`, `pau grpo report`, and `sft`/`grpo train` at their end): the one
 * the run stored at its end; produced now (and stored) when it has none yet, when `fresh` (a run still
 * running), or for a GRPO comparison with other runs.
 */
export async function trainingReportFiles(
  db: Db,
  input: { kind: 'sft' | 'grpo'; runId: string; compare?: string[]; fresh?: boolean },
  out?: string,
): Promise<ReportFiles> {
  const produceNow = input.fresh === true || (input.compare?.length ?? 0) > 0;
  const stored = produceNow ? undefined : await storedReportFiles(db, input.runId, input.kind, out);
  if (stored) return stored;
  const request: ProduceReportInput =
    input.kind === 'sft'
      ? { kind: 'sft', runId: input.runId }
      : { kind: 'grpo', runId: input.runId, ...(input.compare?.length ? { compare: input.compare } : {}) };
  return produceReportFiles(db, request, out);
}
