// What the report producer (platform/report/produceReport.ts) is asked for and what it answers, for every
// kind: a benchmark run (optionally compared with another, with regressions flagged), an SFT run, a GRPO run
// (optionally paired with other GRPO runs). The schema checks a request as it arrives (a workflow's payload,
// the CLI's) and defaults the kind: requests recorded before the kinds (migration 0010) are benchmark ones.
import { z } from 'zod';
import type { ReportKind } from './reportKinds';
import type { BootstrapOptions } from './stats';

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
/** A request as it arrives: checked, the kind defaulted. */
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
