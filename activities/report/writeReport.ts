// Builds a benchmark run's report document from Postgres (buildReport, used by the produceReport activity),
// and fetches stored reports of every kind back out of Postgres as files (the CLI: reports/<runId>.html, .json).
import path from 'node:path';
import { PROJECT_ROOT } from '../../config/env';
import { getDb, type Db } from '../../db/client';
import { and, desc, eq } from 'drizzle-orm';
import { reports } from '../../db/schema/index';
import { headlineText } from '../../domain/report/headline';
import { reportBaseName } from '../../domain/report/transcriptLinks';
import { REPORT_KINDS, type ReportKind } from '../../domain/report/reportKinds';
import type { ReportDocument } from '../../domain/report/renderHtml';
import { judgeModelsOf, loadEpisodeRows, loadRun, loadToolCallSources } from '../../db/queries/reportRows';
import { latestCalibration } from '../calibration/latest';
import { compareSummaries, summarize } from '../../domain/report/summarize';
import type { BootstrapOptions } from '../../domain/report/stats';
import { models } from '../../config/models';
import { SMALL_JUDGE_WARNING } from '../../domain/llm/localModels';
import { ensurePrivateDir, writePrivateFile } from '../../platform/process/privateFiles';
import { judgeCardStatus } from '../../db/queries/judgeCards';

/** The judge fields of a run's config that decide which judge card qualifies its scores. */
interface RunJudgeFields {
  coderModel?: string;
  judge?: { coderModel?: string; judgeParams?: Record<string, unknown>; coderParams?: Record<string, unknown> };
  /** Started with `--allow-unqualified-judge`: the report shows the scores, marked. */
  allowUnqualifiedJudge?: boolean;
}

export interface ReportOptions {
  runId: string;
  /** Another run to show deltas against. */
  compare?: string;
  /** The judge whose judgments to report; default: the one with most judgments in the run. */
  judgeModel?: string;
  bootstrap?: Partial<BootstrapOptions>;
  db?: Db;
}

export type ReportRow = typeof reports.$inferSelect;

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

export class ReportError extends Error {
  override name = 'ReportError';
}

async function resolveJudge(db: Db, runId: string, wanted?: string): Promise<{ judgeModel: string | null; others: string[] }> {
  const judges = (await judgeModelsOf(db, runId)).map((j) => j.judgeModel);
  if (wanted) return { judgeModel: wanted, others: judges.filter((j) => j !== wanted) };
  return { judgeModel: judges[0] ?? null, others: judges.slice(1) };
}

export async function buildReport(opts: ReportOptions): Promise<ReportDocument> {
  const db = opts.db ?? getDb();
  const run = await loadRun(db, opts.runId);
  if (!run) throw new ReportError(`no run ${JSON.stringify(opts.runId)} in the database`);
  const { judgeModel, others } = await resolveJudge(db, opts.runId, opts.judgeModel);
  const episodes = await loadEpisodeRows(db, opts.runId, judgeModel);
  const summary = summarize(episodes, opts.bootstrap);
  const notes: string[] = [];
  if (episodes.length === 0) notes.push('This run has no episodes.');
  if (!judgeModel) notes.push('No episode of this run has been judged yet: run `npm run pau -- judge --run <runId> --judge-model <model>`.');
  const unjudged = episodes.filter((e) => !e.judged).length;
  if (judgeModel && unjudged > 0) notes.push(`${unjudged} of ${episodes.length} episodes have no judgment by ${judgeModel}.`);
  const mocks = [...new Set([...episodes.map((e) => e.model), ...(judgeModel ? [judgeModel] : [])])].filter((m) => m.startsWith('mock-'));
  if (mocks.length > 0) notes.push(`${mocks.join(', ')}: the scripted mock model, not a real LLM (oracle/null/random policies for tests and demos).`);
  const judgeIsLocal = judgeModel !== null && isLocal(judgeModel);
  if (judgeModel && judgeIsLocal) notes.push(`Judge and code writer: ${judgeModel}, a local model: ${SMALL_JUDGE_WARNING}.`);
  const toolCallSources = await loadToolCallSources(db, opts.runId);
  const doc: ReportDocument = {
    runId: opts.runId,
    generatedAt: new Date().toISOString(),
    run,
    judgeModel,
    judgeIsLocal,
    otherJudgeModels: others,
    summary,
    episodes,
    notes,
    toolCallSources,
  };
  const rc = (run.config ?? {}) as RunJudgeFields & { dataset?: string; split?: string };
  if (judgeModel && rc.dataset) {
    doc.judgeCard = await judgeCardStatus(db, {
      judgeModel,
      coderModel: rc.judge?.coderModel ?? rc.coderModel ?? judgeModel,
      dataset: rc.dataset,
      ...(rc.judge?.judgeParams ? { judgeParams: rc.judge.judgeParams } : {}),
      ...(rc.judge?.coderParams ? { coderParams: rc.judge.coderParams } : {}),
      forced: rc.allowUnqualifiedJudge === true,
    });
  }
  if (rc.dataset && rc.split) doc.calibration = { dataset: rc.dataset, split: rc.split, latest: (await latestCalibration(db, rc.dataset, rc.split)) ?? null };
  if (opts.compare) {
    const other = await loadRun(db, opts.compare);
    if (!other) throw new ReportError(`no run ${JSON.stringify(opts.compare)} to compare with`);
    // The compared run is read with the same judge when it has judgments by it, else its own main judge.
    const otherJudges = (await judgeModelsOf(db, opts.compare)).map((j) => j.judgeModel);
    const cj = judgeModel && otherJudges.includes(judgeModel) ? judgeModel : (otherJudges[0] ?? null);
    const prev = summarize(await loadEpisodeRows(db, opts.compare, cj), opts.bootstrap);
    doc.compare = { runId: opts.compare, judgeModel: cj, deltas: compareSummaries(summary, prev) };
    if (cj !== judgeModel) notes.push(`The compared run was judged by ${cj ?? 'nobody'}, this one by ${judgeModel ?? 'nobody'}: deltas mix judges.`);
  }
  return doc;
}

function isLocal(model: string): boolean {
  try {
    return models().get(model).provider === 'local';
  } catch {
    return false;
  }
}

/** The latest stored report of a run (optionally of one kind, or the one compared with `compare`). */
export async function latestReport(db: Db, runId: string, compare?: string, kind?: ReportKind): Promise<ReportRow | undefined> {
  const [row] = await db
    .select()
    .from(reports)
    .where(
      and(
        eq(reports.runId, runId),
        compare === undefined ? undefined : eq(reports.compareRunId, compare),
        kind === undefined ? undefined : eq(reports.kind, kind),
      ),
    )
    .orderBy(desc(reports.createdAt), desc(reports.id))
    .limit(1);
  return row;
}

export async function reportById(db: Db, id: number): Promise<ReportRow | undefined> {
  const [row] = await db.select().from(reports).where(eq(reports.id, id)).limit(1);
  return row;
}

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
  const document = row.json as ReportDocument;
  // Benchmark rows stored before migration 0010 have no text: the headline comes from their document.
  return { reportId: row.id, kind: 'benchmark', htmlPath, jsonPath, headline: row.text ?? headlineText(document), document };
}

function reportKindOf(kind: string): Exclude<ReportKind, 'benchmark'> {
  const k = REPORT_KINDS.find((x): x is Exclude<ReportKind, 'benchmark'> => x === kind && x !== 'benchmark');
  if (!k) throw new ReportError(`a stored report of unknown kind ${JSON.stringify(kind)} (this build knows ${REPORT_KINDS.join(', ')})`);
  return k;
}
