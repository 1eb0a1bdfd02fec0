// What a benchmark Schedule starts: a benchmark run (a child, with its own id bench/<runId>), then its
// report (produceReport, stored in Postgres) compared with the previous run of the same schedule,
// regressions flagged.
import { executeChild, patched, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { PauRunId } from '../../domain/temporal/searchAttributes';
import type { BenchmarkConfig, BenchmarkRunResult } from '../../domain/bench/types';
import { benchmarkSearchAttributes, benchWorkflowId } from '../../domain/bench/workflowIds';
import { report as ops } from '../proxies/mainQueue';
import { benchmarkRunWorkflow } from '../bench/benchmarkRunWorkflow';

export interface ScheduledBenchmarkInput {
  scheduleId: string;
  config: BenchmarkConfig;
}

export interface ScheduledBenchmarkResult {
  runId: string;
  result: BenchmarkRunResult;
  previousRunId: string | null;
  regressions: string[];
  /** The stored report (`reports.id`); `pau report` writes its files. */
  reportId: number;
}

/**
 * A run id from the workflow id the Schedule gave this execution (`scheduled/<scheduleId>-<time>`),
 * so the same scheduled action always maps to the same run.
 */
export function scheduledRunId(workflowId: string): string {
  return workflowId.replace(/^scheduled\//, '').replace(/[^A-Za-z0-9._-]+/g, '');
}

export async function scheduledBenchmarkWorkflow(input: ScheduledBenchmarkInput): Promise<ScheduledBenchmarkResult> {
  const runId = scheduledRunId(workflowInfo().workflowId);
  upsertSearchAttributes([{ key: PauRunId, value: runId }]);
  const config = { ...input.config, scheduleId: input.scheduleId };
  const result = await executeChild(benchmarkRunWorkflow, {
    args: [{ runId, config }],
    workflowId: benchWorkflowId(runId),
    taskQueue: TASK_QUEUES.main,
    typedSearchAttributes: benchmarkSearchAttributes(runId, config),
    staticSummary: `scheduled benchmark (${input.scheduleId}): ${config.dataset}/${config.split} × ${config.models.join(', ')} × ${config.settings.join(', ')}`,
  });
  const previousRunId = await ops.previousScheduledRun({ scheduleId: input.scheduleId, runId });
  // Histories recorded before reports moved to Postgres called writeScheduledReport (now the same thing).
  const report = patched('report-in-postgres')
    ? await ops.produceReport({ runId, ...(previousRunId ? { compare: previousRunId } : {}), regressions: true })
    : await ops.writeScheduledReport({ runId, previousRunId });
  return { runId, result, previousRunId, regressions: report.regressions, reportId: report.reportId };
}
