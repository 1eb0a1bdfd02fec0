// `pau sft train`: one durable SFT run. Train a LoRA adapter on the data set (pau-gpu, resumable), convert it
// for llama.cpp, register the checkpoint (one row per trainer job), then benchmark `ckpt:<id>` and its base
// side by side on the evaluation split in both settings (a benchmark run child, judged) and put the two
// beside each other with paired differences. A failure of the run's own making (missing data set, unusable
// or corrupt base model) fails the workflow with that error after recording it on the run.
import { executeChild, log, patched } from '@temporalio/workflow';
import { benchmarkSearchAttributes, benchWorkflowId } from '../../domain/bench/workflowIds';
import { errorText } from '../../domain/temporal/errorText';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { checkpointModelName, sftCheckpointId, sftEvalRunId, sftExportJobId, sftJobId } from '../../domain/training/checkpointIds';
import { CHECKPOINT_FILES_PATCH, checkpointFilesOf, trainedCheckpointRecord } from '../../domain/training/checkpointRecord';
import { type SftTrainInput, type SftTrainResult, sftBenchmarkConfig, sftTrainerSpec, trainingFigures } from '../../domain/training/sftTrain';
import type { SftComparison } from '../../domain/report/sftComparison';
import { db, report } from '../proxies/mainQueue';
import { produceTrainingReport, TRAINING_REPORT_PATCH } from './trainingReport';
import { gpuPrepare, training } from '../proxies/gpuQueue';
import { benchmarkRunWorkflow } from '../bench/benchmarkRunWorkflow';
import { POLICY_MOVED_PATCH } from '../../domain/report/policyMoved';
import { measurePolicyMoved } from './policyMovedStep';

export async function sftTrainWorkflow(input: SftTrainInput): Promise<SftTrainResult> {
  const { runId, config } = input;
  await db.startSftRun({ runId, config });
  const jobId = sftJobId(runId);
  const checkpointId = sftCheckpointId(runId);
  const checkpointModel = checkpointModelName(checkpointId);
  let stage = 'prepare';
  try {
    const prep = await gpuPrepare.prepareSftData({ jobId, data: config.data, base: config.base });
    stage = 'train';
    const spec = sftTrainerSpec(config, prep.dataFile, prep.baseFile);
    const trained = await training.runTrainerJob({ jobId, command: 'sft', spec });
    stage = 'export';
    const exported = await training.runTrainerJob({
      jobId: sftExportJobId(runId),
      command: 'export-gguf-lora',
      spec: { adapter_dir: trained.done.checkpoint, base_model: prep.baseFile },
    });
    stage = 'register';
    // The files into the store every host reads, from the gpu host that has them (runs started before
    // checkpoints travelled register without).
    const stored = patched(CHECKPOINT_FILES_PATCH) ? await gpuPrepare.storeCheckpointFiles(checkpointFilesOf(trained.done, exported.done)) : null;
    await db.registerCheckpoint({
      ...trainedCheckpointRecord({ id: checkpointId, runId, epoch: 1, jobId, baseModel: config.base, parentId: null }, trained.done, exported.done, {
        ...spec,
        data_set: config.data,
      }),
      ...(stored ? { files: stored.files } : {}),
    });
    const figures = trainingFigures(trained.done.metrics, trained.done.steps, prep.examples, trained.resumedFromStep ?? 0, prep.notAsServed ?? null);

    let comparison: SftComparison | null = null;
    let evalRunId: string | null = null;
    if (config.eval) {
      stage = 'evaluate';
      const e = config.eval;
      evalRunId = sftEvalRunId(runId);
      const bench = sftBenchmarkConfig(e, [checkpointModel, config.base]);

      await executeChild(benchmarkRunWorkflow, {
        args: [{ runId: evalRunId, config: bench }],
        workflowId: benchWorkflowId(evalRunId),
        taskQueue: TASK_QUEUES.main,
        typedSearchAttributes: benchmarkSearchAttributes(evalRunId, bench),
        staticSummary: `SFT ${runId}: ${checkpointModel} beside ${config.base} on ${e.dataset}/${e.split}`,
      });
      stage = 'report';
      comparison = await report.compareSftWithBase({ runId, evalRunId, checkpointModel, baseModel: config.base, judgeModel: e.judgeModel });
      // Did the checkpoint move (patched: histories recorded before had no gate)? Its comparison reads inconclusive if not.
      if (patched(POLICY_MOVED_PATCH)) {
        const gate = await measurePolicyMoved({
          jobId: `${jobId}-shift`,
          evalRunId,
          judgeModel: e.judgeModel,
          checkpointModel,
          base: config.base,
          adapterDir: trained.done.checkpoint,
          temperature: 1,
          maxLength: spec.max_length,
        });
        comparison = { ...comparison, gate };
      }
    }
    const result: SftTrainResult = { runId, checkpointId, checkpointModel, training: figures, evalRunId, comparison };
    await db.finishSftRun({ runId, status: 'completed', summary: { checkpointId, checkpointModel, training: figures, evalRunId } });
    // The run's report into `reports` (kind sft), as every run's is (patched: histories recorded before had no such step).
    if (patched(TRAINING_REPORT_PATCH)) await produceTrainingReport({ kind: 'sft', runId });
    return result;
  } catch (err) {
    const error = `${stage}: ${errorText(err)}`;
    log.warn('sft run failed', { runId, error });
    await db.finishSftRun({ runId, status: 'failed', summary: { stage }, error: error.slice(0, 4000) });
    throw err;
  }
}
