// A benchmark run: every method of a dataset split × models × settings × samples, each an episode child
// workflow, at most `window` (default 50) in flight. After `episodesPerExecution` starts (or when
// Temporal suggests it) the run drains its window and continues as new with the cursor and totals, so
// its history stays small at any size. A failed episode is recorded and counted; it never fails the run.
import {
  ApplicationFailure,
  condition,
  continueAsNew,
  defineQuery,
  log,
  ParentClosePolicy,
  proxyActivities,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { TASK_QUEUES } from '../../domain/temporal/queues';
import type { MainActivities } from '../../activities/mainQueue';
import type { BenchmarkRunInput, BenchmarkRunResult, RunTotals } from '../../domain/bench/types';
import type { EpisodeInput, EpisodeOutcome, Setting } from '../../domain/episode/types';
import { episodeInputFor, episodeSearchAttributes, episodeWorkflowId } from '../../domain/bench/episodeInput';
import { episodeWorkflow } from '../episode/episodeWorkflow';

const db = proxyActivities<MainActivities>({
  taskQueue: TASK_QUEUES.main,
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1s', maximumInterval: '30s', nonRetryableErrorTypes: ['DatasetNotFound', 'EmptySplit', 'MethodNotFound'] },
});

export const benchmarkProgressQuery = defineQuery<RunTotals & { total: number; inFlight: number; cursor: number }>('progress');

const PAGE = 200;


export async function benchmarkRunWorkflow(input: BenchmarkRunInput): Promise<BenchmarkRunResult> {
  const { runId, config } = input;
  const window = Math.max(1, config.window ?? 50);
  const perExecution = Math.max(window, config.episodesPerExecution ?? 500);
  const totals: RunTotals = input.totals ?? { done: 0, failed: 0, tokensIn: 0, tokensOut: 0, costUsd: 0 };
  const combos: { model: string; setting: Setting; sample: number }[] = [];
  for (const model of config.models) for (const setting of config.settings) for (let sample = 0; sample < config.samples; sample++) combos.push({ model, setting, sample });

  let methodCount: number;
  try {
    methodCount = (await db.startRun({ runId, config })).methods;
  } catch (err) {
    await db.finishRun({ runId, status: 'failed', summary: { total: 0, ...totals }, error: (err as Error).message });
    throw err;
  }
  const total = methodCount * combos.length;
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
    if (id === undefined) throw ApplicationFailure.nonRetryable(`run ${runId}: no method at position ${m}`, 'RunPlanChanged');
    return id;
  };

  const settle = (o: EpisodeOutcome) => {
    totals.done++;
    if (o.status === 'failed') totals.failed++;
    totals.tokensIn += o.tokensIn;
    totals.tokensOut += o.tokensOut;
    totals.costUsd += o.costUsd;
  };

  const launch = async (i: number) => {
    const methodId = await methodAt(Math.floor(i / combos.length));
    const { model, setting, sample } = combos[i % combos.length]!;
    const child: EpisodeInput = episodeInputFor(runId, config, methodId, model, setting, sample);
    const { episodeId } = child;
    const fail = async (err: unknown) => {
      const error = err instanceof Error ? `${err.message}${err.cause instanceof Error ? ` <- ${err.cause.message}` : ''}` : String(err);
      log.warn('episode workflow failed', { episodeId, error });
      await db.recordEpisodeFailure({ runId, episodeId, methodId, model, setting, sample, error: error.slice(0, 4000) });
      return { episodeId, status: 'failed', endReason: 'workflow_failed', callsMade: 0, turns: 0, tokensIn: 0, tokensOut: 0, costUsd: 0, error } satisfies EpisodeOutcome;
    };
    let outcome: EpisodeOutcome;
    try {
      const handle = await startChild(episodeWorkflow, {
        args: [child],
        workflowId: episodeWorkflowId(runId, methodId, model, setting, sample),
        taskQueue: TASK_QUEUES.main,
        parentClosePolicy: ParentClosePolicy.TERMINATE,
        typedSearchAttributes: episodeSearchAttributes(runId, methodId, model, config.split),
        staticSummary: `episode: ${methodId} · ${model} · ${setting} · sample ${sample} (run ${runId})`,
      });
      outcome = await handle.result().catch(fail);
    } catch (err) {
      outcome = await fail(err);
    }
    settle(outcome);
  };

  let startedHere = 0;
  const running = new Set<Promise<void>>();
  while (cursor < total) {
    if (startedHere >= perExecution || workflowInfo().continueAsNewSuggested) break;
    await condition(() => inFlight < window);
    const i = cursor++;
    startedHere++;
    inFlight++;
    const p: Promise<void> = launch(i).finally(() => {
      inFlight--;
      running.delete(p);
    });
    running.add(p);
  }
  await Promise.all([...running]);

  if (cursor < total) {
    log.info('continuing as new', { runId, cursor, total });
    await continueAsNew<typeof benchmarkRunWorkflow>({ runId, config, cursor, totals });
  }
  await db.finishRun({ runId, status: 'completed', summary: { total, ...totals } });
  return { runId, total, totals };
}
