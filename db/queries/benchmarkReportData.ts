// What a benchmark run's report reads from Postgres, as its document (buildReport): the episodes with one
// judge's judgments, their summary, the judge card and the latest calibration of the run's split, and the
// deltas against a compared run. The producer (platform/report/produceReport.ts) renders and stores it;
// stored reports are read back by reports.ts.
import { getDb, type Db } from '../client';
import type { ReportDocument } from '../../domain/report/renderHtml';
import { judgeModelsOf, loadEpisodeRows, loadRun, loadToolCallSources } from './reportRows';
import { latestCalibration } from './latestCalibration';
import { compareSummaries, summarize } from '../../domain/report/summarize';
import { compareRuns } from '../../domain/report/runComparison';
import type { BootstrapOptions } from '../../domain/report/stats';
import { models } from '../../config/models';
import { SMALL_JUDGE_WARNING } from '../../domain/llm/localModels';
import { runJudgeCard } from './judgeCards';
import { withheldModes, withholdScoresByMode } from '../../domain/report/judgeCardView';
import { ReportError } from '../../domain/report/reportError';
import { parseRunConfig } from '../runDocuments';

export interface ReportOptions {
  runId: string;
  /** Another run to show deltas against. */
  compare?: string;
  /** The judge whose judgments to report; default: the one with most judgments in the run. */
  judgeModel?: string;
  bootstrap?: Partial<BootstrapOptions>;
  db?: Db;
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
  // The judge card decides which judge modes' scores may be shown (domain/report/judgeCardView.ts).
  const card = judgeModel ? await runJudgeCard(db, run, judgeModel) : undefined;
  const byMode = withholdScoresByMode(await loadEpisodeRows(db, opts.runId, judgeModel), withheldModes(card));
  const episodes = byMode.rows;
  const summary = summarize(episodes, opts.bootstrap);
  const notes: string[] = [...byMode.notes];
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
    ...(byMode.notes.length > 0 ? { modeNotes: byMode.notes } : {}),
    toolCallSources,
  };
  // The judge fields decide which judge card qualifies the scores; the dataset and split, which calibration is shown.
  const rc: { dataset?: string; split?: string } = run.kind === 'benchmark' || run.kind === 'grpo' ? parseRunConfig(run.kind, run.config, run.id) : {};
  if (card) doc.judgeCard = card;
  if (rc.dataset && rc.split) doc.calibration = { dataset: rc.dataset, split: rc.split, latest: (await latestCalibration(db, rc.dataset, rc.split)) ?? null };
  if (opts.compare) {
    const other = await loadRun(db, opts.compare);
    if (!other) throw new ReportError(`no run ${JSON.stringify(opts.compare)} to compare with`);
    // The compared run is read with the same judge when it has judgments by it, else its own main judge.
    const otherJudges = (await judgeModelsOf(db, opts.compare)).map((j) => j.judgeModel);
    const cj = judgeModel && otherJudges.includes(judgeModel) ? judgeModel : (otherJudges[0] ?? null);
    // Its own judge card decides what of it the comparison may show, as in its own report.
    const otherCard = cj ? await runJudgeCard(db, other, cj) : undefined;
    const prevRows = withholdScoresByMode(await loadEpisodeRows(db, opts.compare, cj), withheldModes(otherCard)).rows;
    const prev = summarize(prevRows, opts.bootstrap);
    doc.compare = {
      runId: opts.compare,
      judgeModel: cj,
      ...(otherCard ? { judgeCard: otherCard } : {}),
      deltas: compareSummaries(summary, prev),
      comparison: compareRuns(episodes, prevRows, opts.bootstrap),
    };
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
