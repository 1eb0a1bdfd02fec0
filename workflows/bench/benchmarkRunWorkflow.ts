// A benchmark run: every method of a dataset split × models × settings × samples, each an episode child
// workflow, at most `window` (default 50) in flight. After `episodesPerExecution` starts (or when
// Temporal suggests it) the run drains its window and continues as new with the cursor and totals, so
// its history stays small at any size. A failed episode is recorded and counted; it never fails the run,
// but the run then ends `completed_with_failures`. A cancellation stops starting episodes, asks the ones in
// flight to stop at their next turn boundary, waits for them, marks the run `cancelled` and ends cancelled.
// Judging never holds an episode's place in the window: the run starts each ended episode's judge child itself,
// at most `window` of them in flight (each waits on the judge model's concurrency slots), and waits for them all
// before it continues as new or ends.
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  continueAsNew,
  defineQuery,
  condition,
  executeChild,
  getExternalWorkflowHandle,
  log,
  ParentClosePolicy,
  patched,
  setHandler,
  startChild,
} from '@temporalio/workflow';
import { finishedRunStatus } from '../../domain/bench/runConfig';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import { errorText } from '../../domain/temporal/errorText';
import type { BenchmarkRunInput, BenchmarkRunResult, RunTotals } from '../../domain/bench/types';
import type { EpisodeInput, EpisodeOutcome } from '../../domain/episode/types';
import { episodeInputFor } from '../../domain/bench/episodeInput';
import { episodeSlots, runCombos } from '../../domain/bench/episodeSlots';
import { episodeSearchAttributes, episodeWorkflowId } from '../../domain/bench/workflowIds';
import { db, report } from '../proxies/mainQueue';
import { fanOut } from '../common/fanOut';
import { episodeWorkflow } from '../episode/episodeWorkflow';
import { judgeEpisodeWorkflow } from '../judge/judgeEpisodeWorkflow';
import { judgeEpisodeSearchAttributes, judgeEpisodeWorkflowId } from '../../domain/judge/workflowIds';

export const benchmarkProgressQuery = defineQuery<RunTotals & { total: number; inFlight: number; cursor: number }>('progress');

const PAGE = 200;

export async function benchmarkRunWorkflow(input: BenchmarkRunInput): Promise<BenchmarkRunResult> {
  // The work runs in a non-cancellable scope: a cancellation request is observed on the root scope and
  // handled in order (see the header), instead of abandoning episodes mid-turn with their rows `running`.
  const root = CancellationScope.current();
  return CancellationScope.nonCancellable(() => runBenchmark(input, root));
}

async function runBenchmark(input: BenchmarkRunInput, root: CancellationScope): Promise<BenchmarkRunResult> {
  const { runId, config } = input;
  const window = Math.max(1, config.window ?? 50);
  const perExecution = Math.max(window, config.episodesPerExecution ?? 500);
  const totals: RunTotals = input.totals ?? { done: 0, failed: 0, tokensIn: 0, tokensOut: 0, costUsd: 0 };
  const combos = runCombos(config);

  let methodCount: number;
  try {
    methodCount = (await db.startRun({ runId, config })).methods;
  } catch (err) {
    // A run id that names another run: that run's row is not this execution's to mark.
    const idInUse = err instanceof ActivityFailure && err.cause instanceof ApplicationFailure && err.cause.type === FAILURE_TYPES.runIdInUse;
    if (!idInUse) await db.finishRun({ runId, status: 'failed', summary: { total: 0, ...totals }, error: errorText(err) });
    throw err;
  }
  const slots = episodeSlots(methodCount, combos, config.modelLimits);
  const total = slots.total;
  let cursor = input.cursor ?? 0;
  let inFlight = 0;
  setHandler(benchmarkProgressQuery, () => ({ ...totals, total, inFlight, cursor }));

  // Method ids come in pages from the run's frozen list; one load per page even with many launches waiting.
  const pages = new Map<number, Promise<string[]>>();
  const methodAt = async (m: number): Promise<string> => {
    const offset = Math.floor(m / PAGE) * PAGE;
    let ids = pages.get(offset);
    if (!ids) {
      ids = db.methodPage({ runId, offset, limit: PAGE });
      pages.set(offset, ids);
      for (const k of pages.keys()) if (k < offset - PAGE) pages.delete(k);
    }
    const id = (await ids)[m - offset];
    if (id === undefined) throw ApplicationFailure.nonRetryable(`run ${runId}: no method at position ${m}`, FAILURE_TYPES.runPlanChanged);
    return id;
  };

  const settle = (o: EpisodeOutcome) => {
    if (o.status === 'cancelled') {
      totals.cancelled = (totals.cancelled ?? 0) + 1;
      return;
    }
    totals.done++;
    if (o.status === 'failed') totals.failed++;
    totals.tokensIn += o.tokensIn;
    totals.tokensOut += o.tokensOut;
    totals.costUsd += o.costUsd;
  };

  // Episode workflows in flight, so a cancellation can reach them.
  const children = new Set<string>();
  let cancelling = false;
  const cancelChildren = async () => {
    await Promise.all(
      [...children].map((id) =>
        getExternalWorkflowHandle(id)
          .cancel()
          .catch((err: unknown) => log.warn('could not cancel episode', { id, error: errorText(err) })),
      ),
    );
  };
  // Only when a cancellation arrives: histories without one replay unchanged.
  root.cancelRequested.catch(() => {
    cancelling = true;
    void cancelChildren();
    // Episodes whose turns are local activities read this after each turn (episodeWorkflow): without it
    // they would see the cancellation only at their workflow task's heartbeat. Patched: histories of runs
    // cancelled before it have no such activity.
    if (patched('run-cancel-flag'))
      void db.flagRunCancelling({ runId }).catch((err: unknown) => log.warn('could not flag the run as cancelling', { runId, error: errorText(err) }));
  });

  // Kept patch (docs/operations.md): runs recorded before it judged inside each episode, holding its window slot.
  const judgeByRun = config.judgeModel !== undefined && patched('run-judges-episodes');
  const judgments: Promise<void>[] = [];
  let judging = 0;
  const judgeEnded = (judgeModel: string, episodeId: string, methodId: string) =>
    judgments.push(
      (async () => {
        await condition(() => judging < window);
        judging++;
        try {
          await judgeEpisode(runId, judgeModel, episodeId, methodId, `judge ${episodeId} with ${judgeModel}`);
        } finally {
          judging--;
        }
      })(),
    );

  const launch = async (i: number) => {
    const slot = slots.at(i);
    const methodId = await methodAt(slot.method);
    const { model, setting, sample } = slot.combo;
    const planned: EpisodeInput = episodeInputFor(runId, config, methodId, model, setting, sample);
    const child: EpisodeInput = judgeByRun && planned.judge ? { ...planned, judge: { ...planned.judge, byRun: true } } : planned;
    const { episodeId } = child;
    // A resumed run counts the episodes that already ended instead of running them again.
    if (input.resume) {
      const done = await db.episodeOutcome({ episodeId, ...(config.judgeModel ? { judgeModel: config.judgeModel } : {}) });
      if (done) {
        // Ended, but its judge step never started (the run was terminated in between): judge it now, as the
        // episode would have (same child id; one still running from before is left to finish).
        if (done.unjudged && config.judgeModel && patched('resume-judges-unjudged'))
          await judgeEpisode(runId, config.judgeModel, episodeId, methodId, `judge ${episodeId} with ${config.judgeModel} (left over by a terminated run)`);
        settle(done);
        return;
      }
    }
    if (cancelling) return;
    const fail = async (err: unknown) => {
      const error = errorText(err);
      log.warn('episode workflow failed', { episodeId, error });
      await db.recordEpisodeFailure({ runId, episodeId, methodId, model, setting, sample, error: error.slice(0, 4000) });
      return {
        episodeId,
        status: 'failed',
        endReason: 'workflow_failed',
        callsMade: 0,
        turns: 0,
        tokensIn: 0,
        tokensOut: 0,
        costUsd: 0,
        error,
      } satisfies EpisodeOutcome;
    };
    let outcome: EpisodeOutcome;
    const workflowId = episodeWorkflowId(runId, methodId, model, setting, sample);
    try {
      const handle = await startChild(episodeWorkflow, {
        args: [child],
        workflowId,
        taskQueue: TASK_QUEUES.main,
        parentClosePolicy: ParentClosePolicy.TERMINATE,
        typedSearchAttributes: episodeSearchAttributes(runId, methodId, model, config.split),
        staticSummary: `episode: ${methodId} · ${model} · ${setting} · sample ${sample} (run ${runId})`,
      });
      children.add(workflowId);
      // Started after the cancellation arrived (its start was already on its way): stop it too.
      if (cancelling)
        void getExternalWorkflowHandle(workflowId)
          .cancel()
          .catch(() => undefined);
      outcome = await handle.result().catch(fail);
    } catch (err) {
      outcome = await fail(err);
    } finally {
      children.delete(workflowId);
    }
    settle(outcome);
    if (child.judge?.byRun && outcome.status === 'completed') judgeEnded(child.judge.judgeModel, episodeId, methodId);
  };

  const indices = function* () {
    while (cursor < total) yield cursor++;
  };
  const counted = async (i: number) => {
    inFlight++;
    try {
      await launch(i);
    } finally {
      inFlight--;
    }
  };
  const { failures } = await fanOut(indices(), counted, { window, maxStarts: perExecution, stop: () => cancelling });
  // Every judgment this execution started (each logs its own failure), before the run ends or continues as new.
  if (judgments.length > 0) await Promise.all(judgments);
  if (cancelling) {
    await db.finishRun({ runId, status: 'cancelled', summary: { total, ...totals }, error: 'run cancelled' });
    throw new CancelledFailure(`run ${runId} cancelled: ${totals.done} episodes ended, ${totals.cancelled ?? 0} stopped at a turn boundary`);
  }
  // launch() records its own failures; one here is a bookkeeping activity that failed for good.
  if (failures[0]) throw failures[0].error;

  if (cursor < total) {
    log.info('continuing as new', { runId, cursor, total });
    await continueAsNew<typeof benchmarkRunWorkflow>({ runId, config, cursor, totals, ...(input.resume ? { resume: true } : {}) });
  }
  await db.finishRun({ runId, status: finishedRunStatus(totals), summary: { total, ...totals } });
  // The run's report, stored in Postgres (scheduled runs produce theirs, with the comparison, in the
  // parent). Histories recorded before this step replay without it.
  if (patched('benchmark-report-step') && !config.scheduleId) await report.produceReport({ runId });
  return { runId, total, totals };
}

/**
 * The judge step of an ended episode, started by the run: the same child (id, queue, abandoned on close) the
 * episode would start; its failure is logged, as in the episode.
 */
async function judgeEpisode(runId: string, judgeModel: string, episodeId: string, methodId: string, summary: string): Promise<void> {
  try {
    await executeChild(judgeEpisodeWorkflow, {
      args: [{ runId, episodeId, judgeModel }],
      workflowId: judgeEpisodeWorkflowId(judgeModel, episodeId),
      taskQueue: TASK_QUEUES.main,
      parentClosePolicy: ParentClosePolicy.ABANDON,
      typedSearchAttributes: judgeEpisodeSearchAttributes(runId, judgeModel, methodId),
      staticSummary: summary,
    });
  } catch (err) {
    log.warn('judge step of an ended episode failed', { episodeId, error: errorText(err) });
  }
}
