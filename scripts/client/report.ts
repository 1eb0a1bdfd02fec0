// Reports on the client side: produced by the one producer (platform/report/produceReport.ts, stored in
// Postgres, every kind), written to files from there. `pau report`, `pau judge` and `pau grpo report
// --compare` run the producer in-process (Postgres only, no worker); `pau bench run`, `npm start`, `pau report show`, `pau sft report` and `pau grpo report`
// fetch the report the run produced.
import path from 'node:path';
import { PROJECT_ROOT } from '../../config/env';
import { connect, type Db } from '../../db/client';
import { parseJsonb } from '../../db/jsonb';
import { latestReport, reportById, type ReportRow } from '../../db/queries/reports';
import { headlineText } from '../../domain/report/headline';
import { type ReportDocument, reportDocumentSchema } from '../../domain/report/renderHtml';
import { ReportError } from '../../domain/report/reportError';
import { REPORT_KINDS, type ReportKind } from '../../domain/report/reportKinds';
import type { BenchmarkReportInput, ProduceReportInput } from '../../domain/report/reportRequest';
import { reportBaseName } from '../../domain/report/transcriptLinks';
import { ensurePrivateDir, writePrivateFile } from '../../platform/process/privateFiles';
import { produceReport } from '../../platform/report/produceReport';
import { writeTranscriptPages } from './transcriptPages';
import { requireRun } from '../lib/notFound';

interface ReportFilesBase {
  reportId: number;
  htmlPath: string;
  jsonPath: string;
  /** The report as printed in the terminal (a benchmark report: its headline table). */
  headline: string;
  /** The folder of the episode transcript pages the report links to (when written). */
  transcriptsDir?: string;
}

export interface BenchmarkReportFiles extends ReportFilesBase {
  kind: 'benchmark';
  document: ReportDocument;
}

/** An SFT or GRPO report's files: its text says what the terminal shows. */
export interface TrainingReportFiles extends ReportFilesBase {
  kind: Exclude<ReportKind, 'benchmark'>;
}

export type ReportFiles = BenchmarkReportFiles | TrainingReportFiles;

/**
 * Writes a stored report as `<outDir>/<runId>.html` and `.json` (run ids with `/` are flattened to `_`);
 * `out` ending in `.html` names the HTML file itself (the JSON beside it).
 */
export function writeReportFiles(row: ReportRow, out?: string): ReportFiles {
  const file = out?.endsWith('.html') ? path.resolve(out) : undefined;
  const outDir = file ? path.dirname(file) : out;
  const dir = path.resolve(outDir ?? path.join(PROJECT_ROOT, 'reports'));
  // The project's reports/ is closed even if an older checkout made it world-readable; a folder named by the caller is only created private.
  ensurePrivateDir(dir, { tighten: outDir === undefined });
  const base = file ? path.basename(file, '.html') : reportBaseName(row.runId);
  const htmlPath = path.join(dir, `${base}.html`);
  const jsonPath = path.join(dir, `${base}.json`);
  writePrivateFile(htmlPath, row.html);
  writePrivateFile(jsonPath, `${JSON.stringify(row.json, null, 2)}\n`);
  if (row.kind !== 'benchmark') return { reportId: row.id, kind: reportKindOf(row.kind), htmlPath, jsonPath, headline: row.text ?? '' };
  const document = parseJsonb(reportDocumentSchema, row.json, { table: 'reports', column: 'json', row: String(row.id) });
  // Benchmark rows stored before migration 0010 have no text: the headline comes from their document.
  return { reportId: row.id, kind: 'benchmark', htmlPath, jsonPath, headline: row.text ?? headlineText(document), document };
}

function reportKindOf(kind: string): Exclude<ReportKind, 'benchmark'> {
  const k = REPORT_KINDS.find((x): x is Exclude<ReportKind, 'benchmark'> => x === kind && x !== 'benchmark');
  if (!k) throw new ReportError(`a stored report of unknown kind ${JSON.stringify(kind)} (this build knows ${REPORT_KINDS.join(', ')})`, 'unreadable');
  return k;
}

/** Produces a report now (the producer the activity wraps, in this process) and writes its files. */
export async function produceReportFiles(db: Db, input: BenchmarkReportInput, outDir?: string): Promise<BenchmarkReportFiles>;
export async function produceReportFiles(db: Db, input: ProduceReportInput, outDir?: string): Promise<ReportFiles>;
export async function produceReportFiles(db: Db, input: ProduceReportInput, outDir?: string): Promise<ReportFiles> {
  const { reportId } = await produceReport(db, input);
  const row = await reportById(db, reportId);
  if (!row) throw new ReportError(`report ${reportId} vanished`, 'unreadable');
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

/** The episode transcript pages a benchmark report links to, written beside it (the compared run's too). */
async function withTranscripts<F extends ReportFiles>(db: Db, files: F): Promise<F> {
  if (files.kind !== 'benchmark') return files;
  const { dir } = await writeTranscriptPages(db, files.document.runId, path.dirname(files.htmlPath));
  if (files.document.compare) await writeComparedRun(db, files.document.compare.runId, path.dirname(files.htmlPath));
  return { ...files, transcriptsDir: dir };
}

/**
 * The compared run beside a comparison: its episode pages (the movers link to them) and its own latest report
 * (those pages link back to it), produced when it has none. Not its own comparison's pages: one level only.
 */
async function writeComparedRun(db: Db, runId: string, dir: string): Promise<void> {
  const row = await latestReport(db, runId, undefined, 'benchmark');
  if (!row) {
    await produceReportFiles(db, { runId }, dir);
    return;
  }
  writeReportFiles(row, dir);
  await writeTranscriptPages(db, runId, dir);
}

/**
 * A training run's report (`pau sft report`, `pau grpo report`, and `sft`/`grpo train` at their end): the one
 * the run stored at its end; produced now (and stored) when it has none yet, when `fresh` (a run still
 * running), or for a GRPO comparison with other runs.
 */
export async function trainingReportFiles(
  db: Db,
  input: { kind: TrainingKind; runId: string; compare?: string[]; fresh?: boolean },
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

type TrainingKind = 'sft' | 'grpo';

/**
 * `pau sft report RUN` / `pau grpo report RUN`: the run's report (the stored one; produced now for a run still
 * running or a GRPO comparison) written to files and printed; `progress` adds a line for a running run.
 * NotFoundError (exit 1, one line) when RUN is no run of that kind.
 */
export async function printTrainingReport(
  input: { kind: TrainingKind; runId: string; compare?: string[] },
  out?: string,
  progress?: (db: Db) => Promise<string>,
): Promise<number> {
  const h = connect(undefined, 1);
  try {
    const run = await requireRun(h.db, input.runId, input.kind);
    const running = run.status === 'running';
    const files = await trainingReportFiles(h.db, { ...input, fresh: running }, out);
    if (running && progress) console.log(await progress(h.db));
    console.log(files.headline);
    console.log(`wrote ${files.htmlPath}`);
    return 0;
  } finally {
    await h.close();
  }
}

/** The end of `pau sft|grpo train`: the report the run stored at its end, its text, `doneLine`, and where it is. */
export async function printFinishedTraining(db: Db, kind: TrainingKind, runId: string, doneLine: () => string): Promise<void> {
  const files = await trainingReportFiles(db, { kind, runId });
  console.log(files.headline);
  console.log(doneLine());
  console.log(`report: ${files.htmlPath} (again: npm run pau -- ${kind} report ${runId})`);
}
