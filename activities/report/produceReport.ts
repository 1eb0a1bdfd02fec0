// The produceReport activity (queue `pau`): the one producer of reports. Builds the run's report from
// Postgres (optionally compared with another run, and then with regressions flagged), renders the HTML and
// stores both in `reports`; the run's summary points at it. The benchmark run ends with it, scheduled runs
// call it with the previous run, and `pau report` / `pau judge` call the same function in-process.
import { paidTwice } from '../../db/queries/ledger';
import { ApplicationFailure } from '@temporalio/common';
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { reports, runs } from '../../db/schema/index';
import { headlineText } from '../../domain/report/headline';
import { describeRegression, findRegressions } from '../../domain/report/regressions';
import { renderHtml } from '../../domain/report/renderHtml';
import type { BootstrapOptions } from '../../domain/report/stats';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import { buildReport, ReportError } from './writeReport';

export interface ProduceReportInput {
  runId: string;
  /** Another run to show deltas against. */
  compare?: string;
  /** Also flag regressions against `compare` (scheduled runs). */
  regressions?: boolean;
  /** The judge whose judgments to report; default: the one with most judgments in the run. */
  judgeModel?: string;
  bootstrap?: Partial<BootstrapOptions>;
}

export interface ProducedReport {
  reportId: number;
  runId: string;
  comparedWith: string | null;
  judgeModel: string | null;
  regressions: string[];
  /** The headline table as text. */
  headline: string;
}

export function makeProduceReport(db: () => Db) {
  return async function produceReport(input: ProduceReportInput): Promise<ProducedReport> {
    const d = db();
    const opts = {
      runId: input.runId,
      db: d,
      ...(input.compare ? { compare: input.compare } : {}),
      ...(input.judgeModel ? { judgeModel: input.judgeModel } : {}),
      ...(input.bootstrap ? { bootstrap: input.bootstrap } : {}),
    };
    const doc = await buildReport(opts).catch((err: unknown) => {
      throw err instanceof ReportError ? ApplicationFailure.nonRetryable(err.message, FAILURE_TYPES.reportRunNotFound) : err;
    });
    // The ledger's count of model calls possibly paid twice (re-sent after a crash mid-request).
    const paid = await paidTwice(d, input.runId);
    doc.notes.push(
      `Model calls paid twice (re-sent after a send with no recorded outcome): ${paid.calls} call(s), ${paid.extraSends} extra send(s), ~$${paid.costUsd.toFixed(4)}.`,
    );
    let regressions: string[] = [];
    if (input.compare && input.regressions) {
      const judge = doc.compare?.judgeModel;
      const previous = await buildReport({
        runId: input.compare,
        db: d,
        ...(judge ? { judgeModel: judge } : {}),
        ...(input.bootstrap ? { bootstrap: input.bootstrap } : {}),
      });
      regressions = findRegressions(doc.summary, previous.summary).map(describeRegression);
      doc.notes.unshift(...(regressions.length > 0 ? regressions : [`No regression beyond the 95% intervals of ${input.compare}.`]));
    }
    const json = { ...doc, paidTwice: paid, ...(input.regressions ? { regressions } : {}) };
    const [row] = await d
      .insert(reports)
      .values({ runId: input.runId, compareRunId: input.compare ?? null, judgeModel: doc.judgeModel, html: renderHtml(doc), json })
      .returning({ id: reports.id });
    const reportId = row!.id;
    const patch = { report: reportId, ...(input.regressions ? { comparedWith: input.compare ?? null, regressions } : {}) };
    await d
      .update(runs)
      .set({ summary: sql`coalesce(${runs.summary}, '{}'::jsonb) || ${JSON.stringify(patch)}::jsonb`, updatedAt: new Date() })
      .where(eq(runs.id, input.runId));
    return { reportId, runId: input.runId, comparedWith: input.compare ?? null, judgeModel: doc.judgeModel, regressions, headline: headlineText(doc) };
  };
}
