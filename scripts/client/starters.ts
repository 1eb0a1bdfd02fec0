// Every workflow a client starts, started here: by function reference (the workflow type is the
// function's name), with typed arguments, ids and search attributes from domain/. No casts, no type names
// as strings. The CLI, `npm start`, the Schedule and the tests use these.
import { coderSamplesOf } from '../../domain/judge/mbrExec';
import { DEFAULT_CRITIC_FORMAT } from '../../domain/training/criticPrompt';
import { DEFAULT_JUDGE_FORMAT } from '../../domain/judge/judgePrompt';
import os from 'node:os';
import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowHandle, type WorkflowStartOptions } from '@temporalio/client';
import type { ScheduleOptionsAction } from '@temporalio/client';
import type { Workflow, WorkflowIdReusePolicy } from '@temporalio/common';
import type { BuildConfigInput } from '../../domain/dataset/config';
import { env } from '../../config/env';
import type { BenchmarkConfig } from '../../domain/bench/types';
import { benchmarkSearchAttributes, benchWorkflowId } from '../../domain/bench/workflowIds';
import type { JudgeRunInput } from '../../domain/judge/types';
import {
  judgeCardSearchAttributes,
  judgeCardWorkflowId,
  judgeRunSearchAttributes,
  judgeRunWorkflowId,
  shippedJudgeCardWorkflowId,
} from '../../domain/judge/workflowIds';
import type { ShippedCardCheckInput } from '../../domain/judge/shippedCard';
import { shippedJudgeCardWorkflow } from '../../workflows/judge/shippedJudgeCardWorkflow';
import type { JudgeCardInput } from '../../domain/judge/card';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { PauKind, PauModel, PauRunId, PauSplit } from '../../domain/temporal/searchAttributes';
import { benchmarkRunWorkflow } from '../../workflows/bench/benchmarkRunWorkflow';
import { buildDatasetWorkflow } from '../../workflows/dataset/buildDatasetWorkflow';
import { describeMethodsWorkflow } from '../../workflows/describe/describeMethodsWorkflow';
import { describeCoderModel, describeRunWorkflowId, type DescribeRunInput } from '../../domain/describe/types';
import { doctorWorkflow } from '../../workflows/doctor/doctorWorkflow';
import { judgeRunWorkflow } from '../../workflows/judge/judgeRunWorkflow';
import { judgeCardWorkflow } from '../../workflows/judge/judgeCardWorkflow';
import { rerunFailedEpisodesWorkflow, type RerunFailedInput } from '../../workflows/ops/rerunFailedEpisodesWorkflow';
import { scheduledBenchmarkWorkflow, type ScheduledBenchmarkInput } from '../../workflows/ops/scheduledBenchmarkWorkflow';
import { sftBuildWorkflow } from '../../workflows/training/sftBuildWorkflow';
import { sftTrainWorkflow } from '../../workflows/training/sftTrainWorkflow';
import { grpoWorkflow } from '../../workflows/training/grpoWorkflow';
import { criticCardWorkflow } from '../../workflows/training/criticCardWorkflow';
import { criticCardWorkflowId, type CriticCardInput } from '../../domain/training/criticCard';
import { criticLabelOf, type OnPolicyCardInput, onPolicyCardWorkflowId, onPolicyRunId } from '../../domain/training/onPolicyCard';
import { type GrpoConfig, grpoSearchAttributes, grpoWorkflowId, ROLLOUT_SAMPLING } from '../../domain/training/grpo';
import type { SftBuildConfig } from '../../domain/training/sftData';
import type { SftTrainConfig } from '../../domain/training/sftTrain';
import { sftBuildSearchAttributes, sftBuildWorkflowId, sftTrainSearchAttributes, sftTrainWorkflowId } from '../../domain/training/checkpointIds';

export function benchSummary(config: BenchmarkConfig): string {
  const what = config.methodIds
    ? `${config.methodIds.length} listed methods`
    : `${config.dataset}/${config.split}${config.limit ? ` (first ${config.limit})` : ''}`;
  return `benchmark: ${what} × ${config.models.join(', ')} × ${config.settings.join(', ')} × ${config.samples} sample(s)`;
}

/**
 * Episodes in flight when a run does not say: 10 per core of this machine (the local stack's), 4 to 50.
 * On 2 cores a window of 20 ran 1.5× faster than 50: past that, episodes only queue for the same cores.
 */
export function defaultWindow(cores = os.availableParallelism()): number {
  return Math.min(50, Math.max(4, 10 * cores));
}

/** A run's settings that come from the machine and the deployment when the run does not set them. */
export function withDeploymentDefaults(config: BenchmarkConfig): BenchmarkConfig {
  return { ...config, window: config.window ?? defaultWindow(), sandbox: config.sandbox ?? env().PAU_SANDBOX_PLACEMENT };
}

/**
 * `resume`: continue a stopped run (episodes that ended are counted, not rerun). `reusePolicy`: new runs
 * from the CLI pass REJECT_DUPLICATE, so Temporal also refuses a second run under the same id.
 */
export function startBenchmark(
  client: Client,
  runId: string,
  given: BenchmarkConfig,
  opts: { resume?: boolean; reusePolicy?: WorkflowIdReusePolicy } = {},
): Promise<WorkflowHandle<typeof benchmarkRunWorkflow>> {
  // A resumed run keeps its stored config as it is (it must equal the stored one).
  const config = opts.resume ? given : withDeploymentDefaults(given);
  return client.workflow.start(benchmarkRunWorkflow, {
    taskQueue: TASK_QUEUES.main,
    workflowId: benchWorkflowId(runId),
    args: [{ runId, config, ...(opts.resume ? { resume: true } : {}) }],
    ...(opts.reusePolicy !== undefined ? { workflowIdReusePolicy: opts.reusePolicy } : {}),
    typedSearchAttributes: benchmarkSearchAttributes(runId, config),
    staticSummary: `${opts.resume ? '(resumed) ' : ''}${benchSummary(config)}`,
    staticDetails: `\`\`\`json\n${JSON.stringify(config, null, 2)}\n\`\`\``,
  });
}

export function startJudgeRun(client: Client, input: JudgeRunInput): Promise<WorkflowHandle<typeof judgeRunWorkflow>> {
  return client.workflow.start(judgeRunWorkflow, {
    taskQueue: TASK_QUEUES.main,
    workflowId: judgeRunWorkflowId(input.runId, input.judgeModel),
    args: [input],
    typedSearchAttributes: judgeRunSearchAttributes(input.runId, input.judgeModel),
    staticSummary: `judge run ${input.runId} with ${input.judgeModel}${input.force ? ' (all episodes)' : ' (episodes not yet judged)'}`,
  });
}

/** Starts `workflow`, or attaches to the execution already running under the same id (a card is computed once). */
async function startOrAttach<W extends Workflow>(client: Client, workflow: W, options: WorkflowStartOptions<W>): Promise<WorkflowHandle<W>> {
  try {
    return await client.workflow.start(workflow, options);
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return client.workflow.getHandle<W>(options.workflowId);
    throw err;
  }
}

/** Starts the card's computation, or attaches to the one already running for the same judge, coder and split. */
export async function startJudgeCard(client: Client, input: JudgeCardInput): Promise<WorkflowHandle<typeof judgeCardWorkflow>> {
  const workflowId = judgeCardWorkflowId(
    input.judgeModel,
    input.coderModel,
    input.dataset,
    input.split,
    input.format ?? DEFAULT_JUDGE_FORMAT,
    coderSamplesOf(input.coderSamples),
  );
  return startOrAttach(client, judgeCardWorkflow, {
    taskQueue: TASK_QUEUES.main,
    workflowId,
    args: [input],
    typedSearchAttributes: judgeCardSearchAttributes(input.judgeModel),
    staticSummary: `judge card: judge ${input.judgeModel} (${input.format ?? DEFAULT_JUDGE_FORMAT}), coder ${input.coderModel}${coderSamplesOf(input.coderSamples) > 1 ? ` (MBR-exec over ${coderSamplesOf(input.coderSamples)} programs)` : ''}, ${input.methods} methods of ${input.dataset}/${input.split}${input.skip ? ` after the first ${input.skip}` : ''}`,
  });
}

/** Starts the check of the judge card shipped with the benchmark, or attaches to the one running for the same key. */
export async function startShippedJudgeCard(client: Client, input: ShippedCardCheckInput): Promise<WorkflowHandle<typeof shippedJudgeCardWorkflow>> {
  const format = input.format ?? DEFAULT_JUDGE_FORMAT;
  return startOrAttach(client, shippedJudgeCardWorkflow, {
    taskQueue: TASK_QUEUES.main,
    workflowId: shippedJudgeCardWorkflowId(input.judgeModel, input.coderModel, input.dataset, input.split, format),
    args: [input],
    typedSearchAttributes: judgeCardSearchAttributes(input.judgeModel),
    staticSummary: `shipped judge card: judge ${input.judgeModel} (${format}), coder ${input.coderModel}, ${input.dataset}/${input.split}: re-judged on a sample`,
  });
}

/** Starts the critic card's computation, or attaches to the one already running for the same critic and episodes. */
export async function startCriticCard(client: Client, input: CriticCardInput): Promise<WorkflowHandle<typeof criticCardWorkflow>> {
  const workflowId = criticCardWorkflowId(input.criticModel, input.dataset, input.split, input.runId, input.format);
  return startOrAttach(client, criticCardWorkflow, {
    taskQueue: TASK_QUEUES.main,
    workflowId,
    args: [input],
    typedSearchAttributes: [
      { key: PauKind, value: 'critic-card' },
      { key: PauModel, value: input.criticModel },
    ],
    staticSummary: `critic card: critic ${input.criticModel} (${input.format ?? DEFAULT_CRITIC_FORMAT}), ${input.episodes} episodes of ${input.runId ? `run ${input.runId}` : `${input.dataset}/${input.split}`}`,
  });
}

/**
 * Starts an on-policy critic card, or attaches to the one running for the same rollouts and critics. The
 * rollouts run their calls where the deployment's episodes do and sample from the full distribution, as a GRPO
 * run's (startGrpo): the rollout run's id is a hash of that whole config, so a card with other critics reuses them.
 */
export async function startOnPolicyCard(
  client: Client,
  given: Omit<OnPolicyCardInput, 'onPolicy' | 'runId'>,
): Promise<{ runId: string; handle: WorkflowHandle<typeof criticCardWorkflow> }> {
  const config = { ...given.config, sandbox: given.config.sandbox ?? env().PAU_SANDBOX_PLACEMENT, sampling: given.config.sampling ?? ROLLOUT_SAMPLING };
  const runId = onPolicyRunId(config);
  const input: OnPolicyCardInput = { ...given, onPolicy: true, runId, config };
  const handle = await startOrAttach(client, criticCardWorkflow, {
    taskQueue: TASK_QUEUES.main,
    workflowId: onPolicyCardWorkflowId(runId, input.critics),
    args: [input],
    typedSearchAttributes: [
      { key: PauKind, value: 'critic-card' },
      { key: PauModel, value: config.base },
      { key: PauRunId, value: runId },
      { key: PauSplit, value: config.split },
    ],
    staticSummary: `on-policy critic card: ${input.critics.map(criticLabelOf).join(', ')} on ${config.methodsPerEpoch} methods x ${config.group} rollouts of ${config.base} (${config.dataset}/${config.split}, seed ${config.seed})`,
  });
  return { runId, handle };
}

export function datasetWorkflowId(name: string): string {
  return `dataset/${name}`;
}

export function startDatasetBuild(
  client: Client,
  config: BuildConfigInput & { name: string },
  opts: { first?: number } = {},
): Promise<WorkflowHandle<typeof buildDatasetWorkflow>> {
  return client.workflow.start(buildDatasetWorkflow, {
    taskQueue: TASK_QUEUES.main,
    workflowId: datasetWorkflowId(config.name),
    args: [{ config, ...(opts.first ? { first: opts.first } : {}) }],
    typedSearchAttributes: [{ key: PauKind, value: 'dataset' }],
    staticSummary: `dataset build ${config.name}: ${(config.sources ?? ['humaneval', 'mbpp', 'cruxeval', 'codealpaca']).join(', ')}${config.limit ? ` (first ${config.limit} each)` : ''}`,
  });
}

export function startDescribeRun(client: Client, input: DescribeRunInput): Promise<WorkflowHandle<typeof describeMethodsWorkflow>> {
  return client.workflow.start(describeMethodsWorkflow, {
    taskQueue: TASK_QUEUES.main,
    workflowId: describeRunWorkflowId(input.dataset, input.model),
    args: [input],
    typedSearchAttributes: [
      { key: PauKind, value: 'describe' },
      { key: PauModel, value: input.model },
    ],
    staticSummary: `reference descriptions for ${input.dataset}/${input.split ?? 'train'} by ${input.model} (coder ${describeCoderModel(input)}, threshold ${input.threshold ?? 1})`,
  });
}

export function startDoctor(
  client: Client,
  workflowId: string,
  opts: { timeoutMs: number; queueWaitSeconds: number },
): Promise<WorkflowHandle<typeof doctorWorkflow>> {
  return client.workflow.start(doctorWorkflow, {
    taskQueue: TASK_QUEUES.main,
    workflowId,
    args: [{ queueWaitSeconds: opts.queueWaitSeconds }],
    typedSearchAttributes: [{ key: PauKind, value: 'doctor' }],
    staticSummary: 'doctor: one activity on each task queue (pau, pau-sandbox, pau-gpu)',
    workflowExecutionTimeout: `${Math.round(opts.timeoutMs / 1000)}s`,
  });
}

export function startRerun(
  client: Client,
  workflowId: string,
  input: RerunFailedInput,
  failedCount: number,
): Promise<WorkflowHandle<typeof rerunFailedEpisodesWorkflow>> {
  return client.workflow.start(rerunFailedEpisodesWorkflow, {
    taskQueue: TASK_QUEUES.main,
    workflowId,
    args: [input],
    typedSearchAttributes: [
      { key: PauKind, value: 'rerun' },
      { key: PauRunId, value: input.runId },
    ],
    staticSummary: `rerun of ${failedCount} failed episode(s) of run ${input.runId}`,
  });
}

/** What a benchmark Schedule starts (the server appends the scheduled time to the workflow id). */
export function scheduledBenchmarkAction(input: ScheduledBenchmarkInput): ScheduleOptionsAction {
  const c = input.config;
  return {
    type: 'startWorkflow',
    workflowType: scheduledBenchmarkWorkflow,
    workflowId: `scheduled/${input.scheduleId}`,
    taskQueue: TASK_QUEUES.main,
    args: [input],
    typedSearchAttributes: [
      { key: PauKind, value: 'scheduled-benchmark' },
      { key: PauModel, value: c.models.join(',') },
      { key: PauSplit, value: c.split },
    ],
    staticSummary: `scheduled benchmark ${input.scheduleId}: ${c.dataset}/${c.split} × ${c.models.join(', ')} × ${c.settings.join(', ')}`,
  };
}

export function startSftBuild(client: Client, config: SftBuildConfig): Promise<WorkflowHandle<typeof sftBuildWorkflow>> {
  return client.workflow.start(sftBuildWorkflow, {
    taskQueue: TASK_QUEUES.main,
    workflowId: sftBuildWorkflowId(config.name),
    args: [{ config }],
    typedSearchAttributes: sftBuildSearchAttributes(config.name, config.teacher, config.split),
    staticSummary: `SFT data ${config.name}: teacher ${config.teacher} on ${config.dataset}/${config.split}${config.limit ? ` (first ${config.limit})` : ''}, judged by ${config.judgeModel}, score >= ${config.minScore}, code match >= ${config.minCodeMatch}`,
  });
}

export function startSftTrain(client: Client, runId: string, config: SftTrainConfig): Promise<WorkflowHandle<typeof sftTrainWorkflow>> {
  return client.workflow.start(sftTrainWorkflow, {
    taskQueue: TASK_QUEUES.main,
    workflowId: sftTrainWorkflowId(runId),
    args: [{ runId, config }],
    typedSearchAttributes: sftTrainSearchAttributes(runId, config.base, config.eval?.split ?? 'none'),
    staticSummary: `SFT ${runId}: ${config.base} on data set ${config.data}${config.eval ? `, then beside its base on ${config.eval.dataset}/${config.eval.split}` : ''}`,
    staticDetails: `\`\`\`json\n${JSON.stringify(config, null, 2)}\n\`\`\``,
  });
}

export function startGrpo(client: Client, runId: string, given: GrpoConfig): Promise<WorkflowHandle<typeof grpoWorkflow>> {
  // Rollouts and validation episodes run their calls where the deployment's benchmark episodes do.
  // Rollouts sample from the full distribution (recorded in the run's config).
  const config: GrpoConfig = { ...given, sandbox: given.sandbox ?? env().PAU_SANDBOX_PLACEMENT, sampling: given.sampling ?? ROLLOUT_SAMPLING };
  return client.workflow.start(grpoWorkflow, {
    taskQueue: TASK_QUEUES.main,
    workflowId: grpoWorkflowId(runId),
    args: [{ runId, config }],
    typedSearchAttributes: grpoSearchAttributes(runId, config, 0),
    staticSummary: `GRPO ${runId} (${config.reward}): ${config.base}, critic ${config.critic}, ${config.epochs} epochs x ${config.methodsPerEpoch} methods x ${config.group} rollouts on ${config.dataset}/${config.split}`,
    staticDetails: `\`\`\`json\n${JSON.stringify(config, null, 2)}\n\`\`\``,
  });
}
