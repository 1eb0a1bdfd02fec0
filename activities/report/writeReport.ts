// Builds a run's report from Postgres and writes reports/<runId>.html and reports/<runId>.json; returns
// the paths and the headline table as text (the CLI and `npm start` print it).
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../config/env';
import { getDb, type Db } from '../../db/client';
import { formatTable } from '../../scripts/lib/table';
import { renderHtml, type ReportDocument } from './renderHtml';
import { judgeModelsOf, loadEpisodeRows, loadRun } from './reportRows';
import { compareSummaries, headlineRows, summarize } from './summarize';
import type { BootstrapOptions } from './stats';
import { formatToolCallSources, loadToolCallSources } from './toolCallSources';
import { models } from '../../config/models';
import { SMALL_JUDGE_WARNING } from '../../config/localModels';

export interface ReportOptions {
  runId: string;
  /** Another run to show deltas against. */
  compare?: string;
  /** The judge whose judgments to report; default: the one with most judgments in the run. */
  judgeModel?: string;
  /** Directory for the files; default `<project>/reports`. */
  outDir?: string;
  bootstrap?: Partial<BootstrapOptions>;
  db?: Db;
}

export interface ReportResult {
  htmlPath: string;
  jsonPath: string;
  /** The headline table, as printed in the terminal. */
  headline: string;
  document: ReportDocument;
}

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
  if (judgeModel && isLocal(judgeModel)) notes.push(`Judge and code writer: ${judgeModel}, a local model: ${SMALL_JUDGE_WARNING}.`);
  const toolCallSources = await loadToolCallSources(db, opts.runId);
  const doc: ReportDocument = { runId: opts.runId, generatedAt: new Date().toISOString(), run, judgeModel, otherJudgeModels: others, summary, episodes, notes, toolCallSources };
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

export function headlineText(doc: ReportDocument): string {
  const { headers, rows } = headlineRows(doc.summary);
  const judge = doc.judgeModel ? `${doc.judgeModel}${isLocal(doc.judgeModel) ? ` (local; ${SMALL_JUDGE_WARNING})` : ''}` : 'none';
  const lines = [`run ${doc.runId}: ${doc.summary.totals.episodes} episodes, judge ${judge}`, formatTable(headers, rows)];
  const sources = (doc.toolCallSources ?? []).filter((r) => r.turns > 0 && !r.model.startsWith('mock-'));
  if (sources.length > 0) lines.push('', 'tool calls by source (interactive):', formatToolCallSources(sources));
  if (doc.compare) {
    const d = doc.compare.deltas.filter((x) => x.metric === 'score' || x.metric === 'codeMatch');
    lines.push('', `compared with ${doc.compare.runId}:`);
    lines.push(
      formatTable(
        ['model', 'setting', 'metric', 'this', 'other', 'delta'],
        d.map((x) => [x.model, x.setting, x.metric, x.current?.toFixed(3) ?? '-', x.previous?.toFixed(3) ?? '-', x.delta === null ? '-' : `${x.delta >= 0 ? '+' : ''}${x.delta.toFixed(3)}`]),
      ),
    );
  }
  return lines.join('\n');
}

/** Writes `<outDir>/<runId>.html` and `.json` (run ids with `/` are flattened to `_`). */
export async function writeReport(opts: ReportOptions): Promise<ReportResult> {
  const doc = await buildReport(opts);
  const outDir = path.resolve(opts.outDir ?? path.join(PROJECT_ROOT, 'reports'));
  fs.mkdirSync(outDir, { recursive: true });
  const base = opts.runId.replace(/[^A-Za-z0-9._-]+/g, '_');
  const htmlPath = path.join(outDir, `${base}.html`);
  const jsonPath = path.join(outDir, `${base}.json`);
  fs.writeFileSync(htmlPath, renderHtml(doc));
  fs.writeFileSync(jsonPath, JSON.stringify(doc, null, 2) + '\n');
  return { htmlPath, jsonPath, headline: headlineText(doc), document: doc };
}
