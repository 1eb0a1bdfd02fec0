// The produceReport activity (queue `pau`): the one producer of reports, of every kind (benchmark, SFT,
// GRPO), all stored in `reports` with their kind, HTML, document and terminal text; the run's summary points
// at the newest. A benchmark report is built from Postgres (optionally compared with another run, and then
// with regressions flagged); an SFT or GRPO report from the run's recorded figures (domain/report/sftReport.ts,
// grpoReport.ts). The benchmark run ends with it, scheduled runs call it with the previous run, SFT and GRPO
// runs call it at their end, and `pau report` / `pau judge` / `pau grpo report --compare` call the same
// function in-process.
import { paidTwice } from '../../db/queries/ledger';
import { ApplicationFailure } from '@temporalio/common';
import { eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/client';
import type { AnyDocument } from '../../domain/common/jsonDocument';
import { reports, runs } from '../../db/schema/index';
import { headlineText } from '../../domain/report/headline';
import { describeRegression, findRegressions } from '../../domain/report/regressions';
import { renderHtml } from '../../domain/report/renderHtml';
import { renderGrpoReport, renderGrpoText } from '../../domain/report/grpoReport';
import type { ReportKind } from '../../domain/report/reportKinds';
import { renderSftHtml, renderSftText } from '../../domain/report/sftReport';
import type { BootstrapOptions } from '../../domain/report/stats';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import { loadGrpoReport } from '../../db/queries/grpoReportData';
import { loadSftReport } from '../../db/queries/sftReportData';
import { ReportError } from '../../domain/report/reportError';
import { buildReport } from './writeReport';

/** A benchmark run's report (`kind` absent: inputs recorded before the kinds, all benchmark). */
export interface BenchmarkReportInput {
  kind?: 'benchmark';
  runId: string;
  /** Another run to show deltas against. */
  compare?: string;
  /** Also flag regressions against `compare` (scheduled runs). */
  regressions?: boolean;
  /** The judge whose judgments to report; default: the one with most judgments in the run. */
  judgeModel?: string;
  bootstrap?: Partial<BootstrapOptions>;
}

/** An SFT run's report (`pau sft train`'s run id). */
export interface SftReportInput {
  kind: 'sft';
  runId: string;
}

/** A GRPO run's report; `compare`: other GRPO runs (other reward modes) paired against it by epoch. */
export interface GrpoReportRequest {
  kind: 'grpo';
  runId: string;
  compare?: string[];
}

export type ProduceReportInput = BenchmarkReportInput | SftReportInput | GrpoReportRequest;

const runIdSchema = z.string().min(1);
const bootstrapSchema = z.object({ resamples: z.number().int().positive(), confidence: z.number().gt(0).lt(1), seed: z.number().int() }).partial();
/** The activity's input as it arrives (a workflow's payload or the CLI's): checked, the kind defaulted. */
export const produceReportInputSchema = z.union([
  z
    .object({
      kind: z.literal('benchmark').default('benchmark'),
      runId: runIdSchema,
      compare: runIdSchema.optional(),
      regressions: z.boolean().optional(),
      judgeModel: z.string().min(1).optional(),
      bootstrap: bootstrapSchema.optional(),
    })
    .strict(),
  z.object({ kind: z.literal('sft'), runId: runIdSchema }).strict(),
  z.object({ kind: z.literal('grpo'), runId: runIdSchema, compare: z.array(runIdSchema).optional() }).strict(),
]);

export interface ProducedReport {
  reportId: number;
  kind: ReportKind;
  runId: string;
  comparedWith: string | null;
  judgeModel: string | null;
  regressions: string[];
  /** The report as the terminal prints it (a benchmark report: its headline table). */
  headline: string;
}

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
async function storeReport(d: Db, r: StoredReport, patch: Record<string, unknown> = {}): Promise<number> {
  const [row] = await d
    .insert(reports)
    .values({ kind: r.kind, runId: r.runId, compareRunId: r.compareRunId, judgeModel: r.judgeModel, html: r.html, json: r.json, text: r.text })
    .returning({ id: reports.id });
  const reportId = row!.id;
  await d
    .update(runs)
    .set({ summary: sql`coalesce(${runs.summary}, '{}'::jsonb) || ${JSON.stringify({ report: reportId, ...patch })}::jsonb`, updatedAt: new Date() })
    .where(eq(runs.id, r.runId));
  return reportId;
}

const notFound = (message: string) => ApplicationFailure.nonRetryable(message, FAILURE_TYPES.reportRunNotFound);

export function makeProduceReport(db: () => Db) {
  return async function produceReport(raw: ProduceReportInput): Promise<ProducedReport> {
    const parsed = produceReportInputSchema.safeParse(raw);
    if (!parsed.success) throw ApplicationFailure.nonRetryable(`produceReport: bad input: ${parsed.error.message}`, FAILURE_TYPES.reportBadInput);
    const input = parsed.data;
    const d = db();
    if (input.kind === 'sft') {
      const doc = await loadSftReport(d, input.runId);
      if (!doc) throw notFound(`no SFT run ${JSON.stringify(input.runId)} in the database`);
      const text = renderSftText(doc);
      const judgeModel = doc.comparison?.judgeModel ?? doc.config.eval?.judgeModel ?? null;
      const reportId = await storeReport(d, { kind: 'sft', runId: input.runId, compareRunId: null, judgeModel, html: renderSftHtml(doc), json: doc, text });
      return { reportId, kind: 'sft', runId: input.runId, comparedWith: null, judgeModel, regressions: [], headline: text };
    }
    if (input.kind === 'grpo') {
      const doc = await loadGrpoReport(d, input.runId, input.compare ?? []);
      if (!doc) throw notFound(`no GRPO run ${JSON.stringify(input.runId)} in the database`);
      const text = renderGrpoText(doc);
      const compareRunId = input.compare && input.compare.length > 0 ? input.compare.join(',') : null;
      const judgeModel = doc.config.judgeModel;
      const reportId = await storeReport(d, { kind: 'grpo', runId: input.runId, compareRunId, judgeModel, html: renderGrpoReport(doc), json: doc, text });
      return { reportId, kind: 'grpo', runId: input.runId, comparedWith: compareRunId, judgeModel, regressions: [], headline: text };
    }
    const opts = {
      runId: input.runId,
      db: d,
      ...(input.compare ? { compare: input.compare } : {}),
      ...(input.judgeModel ? { judgeModel: input.judgeModel } : {}),
      ...(input.bootstrap ? { bootstrap: input.bootstrap } : {}),
    };
    const doc = await buildReport(opts).catch((err: unknown) => {
      throw err instanceof ReportError ? notFound(err.message) : err;
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
    const headline = headlineText(doc);
    const reportId = await storeReport(
      d,
      { kind: 'benchmark', runId: input.runId, compareRunId: input.compare ?? null, judgeModel: doc.judgeModel, html: renderHtml(doc), json, text: headline },
      input.regressions ? { comparedWith: input.compare ?? null, regressions } : {},
    );
    return { reportId, kind: 'benchmark', runId: input.runId, comparedWith: input.compare ?? null, judgeModel: doc.judgeModel, regressions, headline };
  };
}
