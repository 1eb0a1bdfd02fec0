// The one producer of reports, of every kind (benchmark, SFT, GRPO): reads the run from Postgres
// (db/queries/benchmarkReportData.ts, sftReportData.ts, grpoReportData.ts), renders it (domain/report/) and
// stores it in `reports` with its kind, HTML, document and terminal text; the run's summary points at the
// newest. Not Temporal: the produceReport activity (activities/report/produceReport.ts) wraps it for the
// workflows (benchmark, scheduled, SFT and GRPO runs end with it), and `pau report` / `pau judge` / the
// training report verbs call it in-process, so a report needs only Postgres. Failures are ReportErrors.
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { buildReport } from '../../db/queries/benchmarkReportData';
import { loadGrpoReport } from '../../db/queries/grpoReportData';
import { paidTwice } from '../../db/queries/ledger';
import { loadSftReport } from '../../db/queries/sftReportData';
import { reports } from '../../db/schema/reports';
import { runs } from '../../db/schema/runs';
import type { AnyDocument } from '../../domain/common/jsonDocument';
import { renderGrpoReport, renderGrpoText } from '../../domain/trainingReport/grpoReport';
import { headlineText } from '../../domain/report/headline';
import { describeRegression, findRegressions } from '../../domain/report/regressions';
import { renderHtml } from '../../domain/report/renderHtml';
import { comparedView, reportView } from '../../domain/report/judgeCardView';
import { metricShown } from '../../domain/report/summarize';
import { ReportError } from '../../domain/report/reportError';
import type { ReportKind } from '../../domain/report/reportKinds';
import { type ProducedReport, type ProduceReportInput, produceReportInputSchema } from '../../domain/report/reportRequest';
import { renderSftHtml, renderSftText } from '../../domain/trainingReport/sftReport';

interface StoredReport {
  kind: ReportKind;
  runId: string;
  compareRunId: string | null;
  judgeModel: string | null;
  html: string;
  json: AnyDocument;
  text: string;
}

/** Stores a report and points the run's summary at it (plus `patch`); returns the row's id. */
async function storeReport(db: Db, r: StoredReport, patch: Record<string, unknown> = {}): Promise<number> {
  const [row] = await db
    .insert(reports)
    .values({ kind: r.kind, runId: r.runId, compareRunId: r.compareRunId, judgeModel: r.judgeModel, html: r.html, json: r.json, text: r.text })
    .returning({ id: reports.id });
  const reportId = row!.id;
  await db
    .update(runs)
    .set({ summary: sql`coalesce(${runs.summary}, '{}'::jsonb) || ${JSON.stringify({ report: reportId, ...patch })}::jsonb`, updatedAt: new Date() })
    .where(eq(runs.id, r.runId));
  return reportId;
}

/** Produces, stores and returns the report `raw` asks for; throws a ReportError (its `reason` says why). */
export async function produceReport(db: Db, raw: ProduceReportInput): Promise<ProducedReport> {
  const parsed = produceReportInputSchema.safeParse(raw);
  if (!parsed.success) throw new ReportError(`produceReport: bad input: ${parsed.error.message}`, 'badInput');
  const input = parsed.data;
  if (input.kind === 'sft') {
    const doc = await loadSftReport(db, input.runId);
    if (!doc) throw new ReportError(`no SFT run ${JSON.stringify(input.runId)} in the database`);
    const text = renderSftText(doc);
    const judgeModel = doc.comparison?.judgeModel ?? doc.config.eval?.judgeModel ?? null;
    const reportId = await storeReport(db, { kind: 'sft', runId: input.runId, compareRunId: null, judgeModel, html: renderSftHtml(doc), json: doc, text });
    return { reportId, kind: 'sft', runId: input.runId, comparedWith: null, judgeModel, regressions: [], headline: text };
  }
  if (input.kind === 'grpo') {
    const doc = await loadGrpoReport(db, input.runId, input.compare ?? []);
    if (!doc) throw new ReportError(`no GRPO run ${JSON.stringify(input.runId)} in the database`);
    const text = renderGrpoText(doc);
    const compareRunId = input.compare && input.compare.length > 0 ? input.compare.join(',') : null;
    const judgeModel = doc.config.judgeModel;
    const reportId = await storeReport(db, { kind: 'grpo', runId: input.runId, compareRunId, judgeModel, html: renderGrpoReport(doc), json: doc, text });
    return { reportId, kind: 'grpo', runId: input.runId, comparedWith: compareRunId, judgeModel, regressions: [], headline: text };
  }
  const doc = await buildReport({
    runId: input.runId,
    db,
    ...(input.compare ? { compare: input.compare } : {}),
    ...(input.judgeModel ? { judgeModel: input.judgeModel } : {}),
    ...(input.bootstrap ? { bootstrap: input.bootstrap } : {}),
  });
  // The ledger's count of model calls possibly paid twice (re-sent after a crash mid-request).
  const paid = await paidTwice(db, input.runId);
  doc.notes.push(
    `Model calls paid twice (re-sent after a send with no recorded outcome): ${paid.calls} call(s), ${paid.extraSends} extra send(s), ~$${paid.costUsd.toFixed(4)}.`,
  );
  let regressions: string[] = [];
  if (input.compare && input.regressions) {
    const judge = doc.compare?.judgeModel;
    const previous = await buildReport({
      runId: input.compare,
      db,
      ...(judge ? { judgeModel: judge } : {}),
      ...(input.bootstrap ? { bootstrap: input.bootstrap } : {}),
    });
    // Only on what both runs' judge cards let them show (a score from an uncarded judge is no regression).
    const view = doc.compare ? comparedView(reportView(doc), reportView(doc.compare), input.compare) : reportView(doc);
    regressions = findRegressions(doc.summary, previous.summary)
      .filter((r) => metricShown(view, r.metric))
      .map(describeRegression);
    doc.notes.unshift(...(regressions.length > 0 ? regressions : [`No regression beyond the 95% intervals of ${input.compare}.`]));
  }
  const json = { ...doc, paidTwice: paid, ...(input.regressions ? { regressions } : {}) };
  const headline = headlineText(doc);
  const reportId = await storeReport(
    db,
    { kind: 'benchmark', runId: input.runId, compareRunId: input.compare ?? null, judgeModel: doc.judgeModel, html: renderHtml(doc), json, text: headline },
    input.regressions ? { comparedWith: input.compare ?? null, regressions } : {},
  );
  return { reportId, kind: 'benchmark', runId: input.runId, comparedWith: input.compare ?? null, judgeModel: doc.judgeModel, regressions, headline };
}
