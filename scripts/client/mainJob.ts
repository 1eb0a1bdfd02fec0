// The main job of `npm start`, after the doctor: the dataset if missing, then a benchmark on a small
// sample with the configured models — or, when none is configured, with a real local model beside the scripted anchors.
import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowHandle } from '@temporalio/client';
import type { BenchmarkConfig } from '../../domain/bench/types';
import { models, startModels } from '../../config/models';
import { workflowUiLink } from '../../config/services';
import { connect } from '../../db/client';
import { getDataset } from '../../platform/dataset/store';
import { benchWorkflowId } from '../../domain/bench/workflowIds';
import { newRunId, watchBenchmark } from './bench';
import { startBenchmark, startJudgeCard } from './starters';
import { runSummaryText } from './benchSummary';
import { datasetWorkflowId, startDatasetBuild, watchDatasetBuild } from './dataset';
import { chooseJudge, judgeFields } from './judgeChoice';
import { fetchReportFiles } from './report';
import { runStartCalibration } from './startCalibration';
import type { StageClock } from './startStages';
import { env } from '../../config/env';
import { installedModels, installModel } from '../../platform/models/local/install';
import { judgeCardStatus } from '../../db/queries/judgeCards';
import { judgeCardLines } from '../../domain/judge/cardSummary';
import { isCheckpointModel } from '../../domain/training/checkpointIds';
import { failureLine } from './benchStart';
import { DEFAULT_THRESHOLDS } from '../../domain/judge/card';
import { DEFAULT_LOCAL_JUDGE, LOCAL_PREFIX } from '../../domain/llm/localModels';
import type { buildDatasetWorkflow } from '../../workflows/dataset/buildDatasetWorkflow';

export const START_DATASET = 'pau-v1';
/** Methods of the test split the start-up benchmark covers. */
export const START_SAMPLE_METHODS = 10;
/**
 * With nothing configured, a real local model runs on CPU and the strongest local model installed (the
 * 1.5B, if present) judges and codes every episode, anchors included: 1 method × 3 models × 2 settings =
 * 6 episodes and 6 judgments. 2 methods did not finish within 35 minutes on the shared 2-core machine
 * (load 15 to 20, 1.5B judge); measured figures in docs/benchmarks.md ("Local models").
 */
export const START_LOCAL_METHODS = 1;
/** Budgets of the start-up run with the local model (the 0.5B rarely learns more after 6 calls). */
export const START_LOCAL_BUDGETS = { maxCalls: 6, maxTurns: 6 };

async function ensureDataset(client: Client, log: (s: string) => void): Promise<'present' | 'built' | 'failed'> {
  const h = connect(undefined, 1);
  try {
    const ds = await getDataset(h.db, START_DATASET);
    if (ds?.status === 'ready') {
      log(`dataset ${START_DATASET}: present`);
      return 'present';
    }
    log(`dataset ${START_DATASET}: ${ds ? `status ${ds.status}` : 'missing'}; building it (BuildDatasetWorkflow)`);
    let handle: WorkflowHandle<typeof buildDatasetWorkflow>;
    try {
      ({ handle } = await startDatasetBuild(client, { name: START_DATASET }));
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      handle = client.workflow.getHandle(datasetWorkflowId(START_DATASET)); // a build is already running: wait for it
    }
    log(`  ${workflowUiLink(handle.workflowId)}`);
    log('  (once per checkout: every method runs in the sandbox, about 86,500 calls: 6 to 7 minutes on 2 idle cores, 15 to 30 under load)');
    try {
      await watchDatasetBuild(handle);
    } catch (err) {
      const e = err as Error & { cause?: Error & { cause?: Error } };
      log(`dataset ${START_DATASET}: build FAILED: ${e.cause?.cause?.message ?? e.cause?.message ?? e.message}`);
      return 'failed';
    }
    return (await getDataset(h.db, START_DATASET))?.status === 'ready' ? 'built' : 'failed';
  } finally {
    await h.close();
  }
}

/** With nothing configured, the default local judge, when it is not installed yet. */
export function defaultJudgeToInstall(): string | undefined {
  const { fallback } = startModels();
  return !fallback || env().PAU_JUDGE_MODEL || installedModels().includes(DEFAULT_LOCAL_JUDGE) ? undefined : `${LOCAL_PREFIX}${DEFAULT_LOCAL_JUDGE}`;
}

/**
 * With nothing configured, the default local judge is installed while the dataset builds (`npm start`'s
 * models stage: a download and a hash check, it does not compete for the cores the build uses). Resolves
 * to a line for the log.
 */
export function installDefaultJudge(): Promise<string | null> {
  if (!defaultJudgeToInstall()) return Promise.resolve(null);
  return installModel(DEFAULT_LOCAL_JUDGE).then(
    (r) => `judge model ${LOCAL_PREFIX}${DEFAULT_LOCAL_JUDGE}: ${r.outcome} (${r.seconds.toFixed(0)} s, beside the dataset build)`,
    (err: unknown) =>
      `judge model ${LOCAL_PREFIX}${DEFAULT_LOCAL_JUDGE}: install FAILED (${(err as Error).message}); the run is judged by what is installed, if anything`,
  );
}

/** The judge card of the run's judge, printed before the benchmark: what its scores will be worth. */
async function printJudgeCard(client: Client, judgeModel: string, log: (s: string) => void): Promise<void> {
  const h = connect(undefined, 1);
  try {
    let status = await judgeCardStatus(h.db, { judgeModel, coderModel: judgeModel, dataset: START_DATASET });
    const provider = isCheckpointModel(judgeModel) ? 'local' : models().get(judgeModel).provider;
    if (status.status === 'missing' && provider === 'mock') {
      // The scripted judge answers at once: its card costs seconds, so it is computed now.
      log(`judge card of ${judgeModel}: computing it (${DEFAULT_THRESHOLDS.minMethods} validation methods)`);
      const handle = await startJudgeCard(client, {
        judgeModel,
        coderModel: judgeModel,
        dataset: START_DATASET,
        split: 'validation',
        methods: DEFAULT_THRESHOLDS.minMethods,
      });
      // A card that cannot be computed leaves the status `missing`: the report then withholds the scores.
      await handle.result().catch((err: unknown) => log(`judge card of ${judgeModel}: FAILED (${failureLine(err)})`));
      status = await judgeCardStatus(h.db, { judgeModel, coderModel: judgeModel, dataset: START_DATASET });
    }
    if (status.status === 'missing') {
      log(`judge card of ${judgeModel}: not computed on this machine yet, so this run's scores are not shown as measurements (judge-free measures are).`);
      log(`  compute it (once; ${CARD_TIME_HINT}): ${status.command}`);
      log(`  then \`npm run pau -- report <runId>\` shows the scores beside the card`);
      if (provider === 'local')
        log('  measured on the development machine, no built-in local model qualified (docs/judging.md, "Measured cards"): expect its card to fail');
      return;
    }
    for (const line of judgeCardLines(status.card)) log(line);
  } finally {
    await h.close();
  }
}

/** How long a card takes, measured here (docs/judging.md): the scripted judge seconds, a local model far longer. */
const CARD_TIME_HINT = 'seconds for the scripted judge; for a local model on 2 CPU cores, about 3 minutes per method, an hour for 20';

export interface MainJobOptions {
  /** Times the dataset, calibration, benchmark and report stages (`npm start`'s summary). */
  clock?: StageClock;
  /** What the benchmark waits for: the local models (and the default judge) installing and starting beside the build. */
  beforeBenchmark?: Promise<void>;
}

export async function runMainJob(
  client: Client,
  log: (s: string) => void = console.log,
  opts: MainJobOptions = {},
): Promise<{ code: number; datasetReady: boolean }> {
  const { clock } = opts;
  const { names, scripted, fallback } = startModels();
  log('== dataset');
  clock?.start('dataset');
  const dataset = await ensureDataset(client, log);
  clock?.end('dataset', dataset === 'present' ? 'already built' : undefined);
  if (dataset === 'failed') {
    log('benchmark skipped: no dataset (see the dataset build above; `npm run pau -- dataset build` retries it)');
    return { code: 1, datasetReady: false };
  }
  clock?.start('calibration');
  await runStartCalibration(client, log, START_DATASET, START_SAMPLE_METHODS);
  clock?.end('calibration');
  if (opts.beforeBenchmark) {
    let waiting = true;
    const note = setTimeout(() => waiting && log('waiting for the local models to finish installing and start (see [models] lines) ...'), 500);
    await opts.beforeBenchmark;
    waiting = false;
    clearTimeout(note);
  }
  log('== benchmark');
  if (scripted) {
    log(
      `The configured models are the SCRIPTED MOCK models ${names.join(' and ')}: not language models (the oracle replays the gold description after probing, random makes random calls).`,
    );
  }
  if (fallback) {
    log(
      `No model is configured (pau.models.json or PAU_MODELS), so this benchmark runs the real local model ${names[0]} (a small LLM served by llama.cpp on this machine)`,
    );
    log(
      `beside the scripted calibration anchors ${names.slice(1).join(' and ')} (not LLMs: the oracle replays the gold description after probing, random makes random calls). Configure other models: docs/models.md.`,
    );
  }
  clock?.start('benchmark'); // from here: the judge's card, the run, its summary
  const judge = chooseJudge(names);
  log(judge.note);
  if (judge.judgeModel) await printJudgeCard(client, judge.judgeModel, log);
  const limit = fallback ? START_LOCAL_METHODS : START_SAMPLE_METHODS;
  const config: BenchmarkConfig = {
    dataset: START_DATASET,
    split: 'test',
    models: names,
    settings: ['interactive', 'in-context'],
    samples: 1,
    limit,
    ...(fallback ? { budgets: START_LOCAL_BUDGETS } : {}),
    ...judgeFields(judge.judgeModel),
  };
  const runId = newRunId(scripted ? 'start-scripted' : fallback ? 'start-local' : 'start');
  const handle = await startBenchmark(client, runId, config);
  log(`run id: ${runId}  (${limit} test methods × ${names.join(', ')} × interactive, in-context)`);
  log(`workflow: ${benchWorkflowId(runId)}  ${workflowUiLink(benchWorkflowId(runId))}`);
  const h = connect(undefined, 2);
  try {
    const result = await watchBenchmark(h.db, handle, runId);
    clock?.end('benchmark');
    log(await runSummaryText(h.db, runId));
    log(`benchmark ${runId}: ${result.totals.done} episodes, ${result.totals.failed} failed${scripted ? ' (scripted mock models)' : ''}`);
    log('== report');
    const report = await (clock ? clock.time('report', () => fetchReportFiles(h.db, runId)) : fetchReportFiles(h.db, runId));
    log(report.headline);
    log(`report: ${report.htmlPath}`);
    if (report.transcriptsDir) log(`episode transcripts: ${report.transcriptsDir}/`);
    return { code: result.totals.failed === result.totals.done ? 1 : 0, datasetReady: true };
  } finally {
    await h.close();
  }
}
