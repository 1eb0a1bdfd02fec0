// `pau sft build`: the teacher's judged episodes on a split (a benchmark run child, `bench/sft-data-<name>`),
// then the passing ones stored as chat examples with their provenance (buildSftExamples). The summary
// (kept / dropped by reason, per source, tokens) is the result.
import { executeChild } from '@temporalio/workflow';
import { benchmarkSearchAttributes, benchWorkflowId } from '../../domain/bench/workflowIds';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { sftDataRunId } from '../../domain/training/checkpointIds';
import type { SftBuildConfig, SftBuildSummary } from '../../domain/training/sftData';
import { sftBenchmarkConfig } from '../../domain/training/sftTrain';
import { report } from '../proxies/mainQueue';
import { benchmarkRunWorkflow } from '../bench/benchmarkRunWorkflow';

export interface SftBuildInput {
  config: SftBuildConfig;
}

export async function sftBuildWorkflow(input: SftBuildInput): Promise<SftBuildSummary> {
  const { config } = input;
  const runId = sftDataRunId(config.name);
  const bench = sftBenchmarkConfig(config, [config.teacher]);
  await executeChild(benchmarkRunWorkflow, {
    args: [{ runId, config: bench }],
    workflowId: benchWorkflowId(runId),
    taskQueue: TASK_QUEUES.main,
    typedSearchAttributes: benchmarkSearchAttributes(runId, bench),
    staticSummary: `SFT data ${config.name}: teacher ${config.teacher} on ${config.dataset}/${config.split}, judged by ${config.judgeModel}`,
  });
  return report.buildSftExamples({ config, runId });
}
