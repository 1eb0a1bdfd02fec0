// `pau grpo train`: AAC-GRPO, one epoch per workflow execution (continue-as-new between epochs). An epoch:
// sample methods; G rollouts per method by the current policy (the base at epoch 0, else the previous
// checkpoint served by llama.cpp with its GGUF adapter) as ordinary episode children, sampled with distinct
// seeds and judged; the frozen critic rates every exploration step; the update on pau-gpu (grpo-update,
// starting from the previous adapter, KL to the base); the new checkpoint is registered (parent = the previous
// one) and every K epochs benchmarked beside the base on the validation split. Every step is an activity or a
// child workflow with a deterministic id, so a crash anywhere resumes where it was: model calls are cached,
// the trainer resumes from its last save, the checkpoint row is upserted by its job id.
import { continueAsNew, executeChild, log, patched, setHandler, upsertSearchAttributes } from '@temporalio/workflow';
import { benchmarkSearchAttributes, benchWorkflowId } from '../../domain/bench/workflowIds';
import { errorText } from '../../domain/temporal/errorText';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { checkpointModelName } from '../../domain/training/checkpointIds';
import { CHECKPOINT_FILES_PATCH, checkpointFilesOf, trainedCheckpointRecord } from '../../domain/training/checkpointRecord';
import {
  type GrpoEpochFigures,
  type GrpoEvalFigures,
  type GrpoInput,
  type GrpoStage,
  type GrpoResult,
  grpoCheckpointId,
  grpoEvalConfig,
  grpoEvalRunId,
  grpoExportJobId,
  grpoJobId,
  grpoSearchAttributes,
  grpoShiftJobId,
  grpoTrainerSpec,
  policyModelOf,
  rolloutEpisodeInput,
  shouldEvaluate,
  updateFigures,
} from '../../domain/training/grpo';
import { db, llm, report } from '../proxies/mainQueue';
import { produceTrainingReport, TRAINING_REPORT_PATCH } from './trainingReport';
import { gpuPrepare, training } from '../proxies/gpuQueue';
import { benchmarkRunWorkflow } from '../bench/benchmarkRunWorkflow';
import { runRollouts } from './grpoRollouts';
import { SAMPLED_WITH_PATCH } from '../../domain/training/sampledWith';
import { grpoProgressQuery } from './grpoQueries';
import { POLICY_MOVED_PATCH, policyMovedGate, shiftKl } from '../../domain/training/policyMoved';

export async function grpoWorkflow(input: GrpoInput): Promise<GrpoResult> {
  const { runId, config } = input;
  const epoch = input.epoch ?? 0;
  const previous = input.previousCheckpointId ?? null;
  // The stage and when it began: named in a failure, answered to the progress query (no history of its own),
  // registered before the first await so a query during the run's first activity is answered.
  let stage: GrpoStage = 'sample';
  let stageStartedAt = Date.now();
  setHandler(grpoProgressQuery, () => ({ epoch, stage, stageStartedAt }));
  const enter = (next: GrpoStage): number => {
    stage = next;
    stageStartedAt = Date.now();
    return stageStartedAt;
  };
  if (epoch === 0) await db.startGrpoRun({ runId, config });
  upsertSearchAttributes(grpoSearchAttributes(runId, config, epoch));
  // Asked once, before the rollouts: an epoch whose rollouts ran before their turns recorded what served
  // them (a history without the marker) trains unchecked; every later epoch's update checks them.
  const checksSampledWith = patched(SAMPLED_WITH_PATCH);
  let checkpoint: { id: string; path: string };
  try {
    const policy = policyModelOf(config, previous);
    const methods = await db.sampleGrpoMethods({ config, epoch });

    // Rollouts: G episodes per method, a window of them in flight at once (the model's concurrency cap queues them).
    let t = enter('rollouts');
    const inputs = methods.flatMap((m) => Array.from({ length: config.group }, (_, g) => rolloutEpisodeInput(runId, config, epoch, policy, m, g)));
    const outcomes = await runRollouts({ runId, config, epoch, policy, inputs });
    const rolloutsMs = Date.now() - t;

    t = enter('critic');
    const critic = await Promise.all(
      inputs.map((ep, i) =>
        outcomes[i]!.status === 'completed'
          ? llm.criticRollout({
              episodeId: ep.episodeId,
              methodId: ep.methodId,
              critic: config.critic,
              ...(config.criticFormat ? { format: config.criticFormat } : {}),
            })
          : Promise.resolve({ episodeId: ep.episodeId, rewards: [], rated: 0, unparsable: 0 }),
      ),
    );
    const criticMs = Date.now() - t;
    const episodeIds = inputs.map((e) => e.episodeId);
    const rollouts = await report.summarizeGrpoRollouts({ runId, config, episodeIds, critic });

    t = enter('update');
    const jobId = grpoJobId(runId, epoch);
    const prep = await gpuPrepare.prepareGrpoRollouts({
      jobId,
      runId,
      base: config.base,
      judgeModel: config.judgeModel,
      codeMatchWeight: config.codeMatchWeight,
      episodeIds,
    });
    const spec = grpoTrainerSpec(config, epoch, prep.rolloutsFile, prep.baseFile, previous ? (input.previousCheckpointPath ?? null) : null);
    // initCheckpoint: a gpu host without the previous epoch's directory fetches it from the store.
    // sampledWith: the update refuses rollouts sampled by another adapter than its own (sampled-with = trained-on).
    const trained = await training.runTrainerJob({
      jobId,
      command: 'grpo-update',
      spec,
      ...(previous ? { initCheckpoint: previous } : {}),
      ...(checksSampledWith && prep.sampledWith ? { sampledWith: prep.sampledWith } : {}),
    });
    const updateMs = Date.now() - t;

    t = enter('export');
    const exported = await training.runTrainerJob({
      jobId: grpoExportJobId(runId, epoch),
      command: 'export-gguf-lora',
      spec: { adapter_dir: trained.done.checkpoint, base_model: prep.baseFile },
    });
    enter('register');
    const checkpointId = grpoCheckpointId(runId, epoch);
    // The files into the store every host reads (a later epoch's update or rollouts may run elsewhere).
    const stored = patched(CHECKPOINT_FILES_PATCH) ? await gpuPrepare.storeCheckpointFiles(checkpointFilesOf(trained.done, exported.done)) : null;
    await db.registerCheckpoint({
      ...trainedCheckpointRecord(
        { id: checkpointId, runId, epoch: epoch + 1, jobId, baseModel: config.base, parentId: previous },
        trained.done,
        exported.done,
        {
          ...spec,
          reward: config.reward,
          critic: config.critic,
        },
      ),
      ...(stored ? { files: stored.files } : {}),
    });
    const exportMs = Date.now() - t;

    let evalFigures: GrpoEvalFigures | null = null;
    t = Date.now();
    if (shouldEvaluate(config, epoch)) {
      enter('evaluate');
      const evalRunId = grpoEvalRunId(runId, epoch);
      const checkpointModel = checkpointModelName(checkpointId);
      // Both arms on one serving stack, or the run allowed otherwise (patched: histories recorded before had no check).
      const stacks = patched('grpo-eval-serving-stacks')
        ? await db.servingStacks({ checkpointModel, base: config.base, allowMixed: config.allowMixedStacks ?? false })
        : undefined;
      // At the benchmark's budgets and params, like `bench run` (patched: histories recorded before evaluated
      // at the training budgets).
      // and since then at the training budget unless the run chose the benchmark's (config.evalBudgets)
      const atBenchmarkBudgets = patched('grpo-eval-benchmark-budgets') && config.evalBudgets !== 'training';
      const bench = grpoEvalConfig(config, checkpointModel, atBenchmarkBudgets);
      await executeChild(benchmarkRunWorkflow, {
        args: [{ runId: evalRunId, config: bench }],
        workflowId: benchWorkflowId(evalRunId),
        taskQueue: TASK_QUEUES.main,
        typedSearchAttributes: benchmarkSearchAttributes(evalRunId, bench),
        staticSummary: `GRPO ${runId} epoch ${epoch + 1}: ${checkpointModel} beside ${config.base} on ${config.dataset}/${config.evalSplit}`,
      });
      evalFigures = await report.summarizeGrpoEval({ evalRunId, checkpointModel, base: config.base, judgeModel: config.judgeModel });
      if (stacks) evalFigures = { ...evalFigures, stacks };
      // Did the checkpoint move (patched: histories recorded before had no gate)? KL(checkpoint || base) on its
      // evaluation agent turns and the share of transcripts that depart from the base's (policyMoved.ts).
      if (patched(POLICY_MOVED_PATCH)) {
        const jobId = grpoShiftJobId(runId, epoch);
        const shiftIn = await gpuPrepare.prepareShiftEpisodes({ jobId, evalRunId, judgeModel: config.judgeModel, checkpointModel, base: config.base });
        const shift = await training.runTrainerJob({
          jobId,
          command: 'policy-shift',
          spec: {
            base_model: shiftIn.baseFile,
            adapter_dir: trained.done.checkpoint,
            episodes: shiftIn.episodesFile,
            temperature: config.temperature,
            ...(config.maxLength !== undefined ? { max_length: config.maxLength } : {}),
          },
        });
        evalFigures = { ...evalFigures, gate: policyMovedGate(shiftKl(shift.done.metrics), shiftIn) };
      }
    }
    const evalMs = Date.now() - t;

    const figures: GrpoEpochFigures = {
      epoch,
      policyModel: policy,
      checkpointId,
      methods,
      ...rollouts,
      update: updateFigures(trained.done.metrics, trained.done.steps),
      prepared: { rollouts: prep.rollouts, skipped: prep.skipped },
      timing: { rolloutsMs, criticMs, updateMs, exportMs, evalMs },
      eval: evalFigures,
    };
    await db.recordGrpoEpoch({ runId, figures });
    log.info('grpo epoch done', { runId, epoch, checkpointId, meanReward: figures.meanReward });
    checkpoint = { id: checkpointId, path: trained.done.checkpoint };
  } catch (err) {
    const error = `epoch ${epoch + 1} ${stage}: ${errorText(err)}`;
    log.warn('grpo run failed', { runId, error });
    await db.finishGrpoRun({ runId, status: 'failed', summary: { failedEpoch: epoch + 1, stage }, error: error.slice(0, 4000) });
    throw err;
  }
  if (epoch + 1 < config.epochs) {
    return await continueAsNew<typeof grpoWorkflow>({
      runId,
      config,
      epoch: epoch + 1,
      previousCheckpointId: checkpoint.id,
      previousCheckpointPath: checkpoint.path,
    });
  }
  await db.finishGrpoRun({ runId, status: 'completed', summary: { epochsDone: epoch + 1, lastCheckpointId: checkpoint.id } });
  // The run's report into `reports` (kind grpo), as every run's is (patched: histories recorded before had no such step).
  if (patched(TRAINING_REPORT_PATCH)) await produceTrainingReport({ kind: 'grpo', runId });
  return { runId, epochs: epoch + 1, lastCheckpointId: checkpoint.id };
}
