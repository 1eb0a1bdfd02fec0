// The main job of `npm start`, after the doctor: the dataset if missing, then a benchmark on a small
// sample with the configured models — or, when none is configured, with a real local model beside the scripted anchors.
import fs from 'node:fs';
import os from 'node:os';
import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowHandle } from '@temporalio/client';
import type { BenchmarkConfig, BenchmarkRunResult } from '../../domain/bench/types';
import type { BuildConfigInput } from '../../domain/dataset/config';
import { models, setLocalThreads, startModels } from '../../config/models';
import { workflowUiLink } from '../../config/services';
import { connect } from '../../db/client';
import { getDataset } from '../../platform/dataset/store';
import { shippedDatasetFile } from '../../platform/dataset/file';
import { loadDatasetFile, loadLine } from '../../platform/dataset/fileStore';
import { DatasetFileError } from '../../domain/dataset/fileRecord';
import { benchWorkflowId } from '../../domain/bench/workflowIds';
import { newRunId, watchBenchmark } from './bench';
import { startBenchmark, startJudgeCard } from './starters';
import { findShippedCard, repoPath } from '../../platform/judge/shippedCardFile';
import { SAMPLE_RULE } from '../../domain/judge/shippedCard';
import { runSummaryText } from './benchSummary';
import { buildWorkLine, datasetWorkflowId, followBuildWithHead, headAgainstSplit, startDatasetBuild } from './dataset';
import { chooseJudge, judgeFields } from './judgeChoice';
import { fetchReportFiles, produceReportFiles } from './report';
import { runStartCalibration } from './startCalibration';
import { START_DATASET, type StageClock } from './startStages';
import { env } from '../../config/env';
import { installedModels, installModel } from '../../platform/models/local/install';
import { judgeCardStatus } from '../../db/queries/judgeCards';
import { judgeCardLines } from '../../domain/judge/cardSummary';
import { checkShippedCard, watchCardWorkflow } from './judgeCard';
import { lineSink } from './watchWorkflow';
import { judgeCardProgressQuery } from '../../workflows/judge/judgeCardQueries';
import { isCheckpointModel } from '../../domain/training/checkpointIds';
import { failureLine } from './benchStart';
import { DEFAULT_THRESHOLDS } from '../../domain/judge/card';
import { DEFAULT_LOCAL_JUDGE, LOCAL_PREFIX } from '../../domain/llm/localModels';
import type { buildDatasetWorkflow } from '../../workflows/dataset/buildDatasetWorkflow';

export { START_DATASET };
type StartDatasetConfig = BuildConfigInput & { name: string };
/** Methods of the test split the start-up benchmark covers. */
export const START_SAMPLE_METHODS = 10;
/**
 * With nothing configured, a real local model runs on CPU and the strongest local model installed (the
 * 1.5B, if present) judges and codes every episode, anchors included: 1 method × 3 models × 2 settings =
 * 6 episodes and 6 judgments. 2 methods did not finish within 35 minutes on the shared 2-core machine
 * (load 15 to 20, 1.5B judge); measured figures in docs/benchmarks.md ("Local models").
 */
export const START_LOCAL_METHODS = 1;
/**
 * Methods the scripted anchors cover in that run (the local model: START_LOCAL_METHODS of them). An anchor's
 * episode costs a few sandbox calls, then its judgment and its code; on one method the anchors' gap is that
 * one method's (the test split's first, an MBPP task statement), with no interval, and paired differences
 * need at least 5 methods (domain/report/summarize.ts).
 */
export const START_ANCHOR_METHODS = 5;
/** Budgets of the start-up run with the local model (the 0.5B rarely learns more after 6 calls). */
export const START_LOCAL_BUDGETS = { maxCalls: 6, maxTurns: 6 };

/**
 * The start-up dataset: present, or being built. A build checks the likeliest head of the test split
 * first (`first`: the benchmark's methods); `head` resolves with the accepted ones as soon as that is
 * done (none if the build ended first), so the benchmark can start on them while the rest is checked.
 */
interface StartupDataset {
  head?: Promise<string[]>;
  /** The build's outcome ('present': nothing to do; 'loaded': imported from the shipped file, not built). */
  ready: Promise<'present' | 'loaded' | 'built' | 'failed'>;
  /** Imported from the shipped file just now. */
  loaded?: boolean;
}

export async function openDataset(
  client: Client,
  log: (s: string) => void,
  cfg: StartDatasetConfig,
  first: number,
  beside: () => boolean,
): Promise<StartupDataset> {
  const h = connect(undefined, 1);
  try {
    const ds = await getDataset(h.db, cfg.name);
    if (ds?.status === 'ready') {
      log(`dataset ${cfg.name}: present`);
      return { ready: Promise.resolve('present') };
    }
    // The repository ships the built dataset (datasets/<name>/): loading it takes seconds, a build minutes.
    const shipped = shippedDatasetFile(cfg.name);
    if (fs.existsSync(shipped)) {
      try {
        log(loadLine(await loadDatasetFile(h.db, shipped)));
        return { ready: Promise.resolve('loaded'), loaded: true };
      } catch (err) {
        if (!(err instanceof DatasetFileError)) throw err;
        log(`dataset ${cfg.name}: the shipped file was refused, nothing imported (${err.message}); building it instead`);
      }
    }
    log(`dataset ${cfg.name}: ${ds ? `status ${ds.status}` : 'missing'}; building it (BuildDatasetWorkflow)`);
    let handle: WorkflowHandle<typeof buildDatasetWorkflow>;
    try {
      ({ handle } = await startDatasetBuild(client, cfg, { first }));
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      handle = client.workflow.getHandle(datasetWorkflowId(cfg.name)); // a build is already running: wait for it
    }
    log(`  ${workflowUiLink(handle.workflowId)}`);
    log(
      `  (once per checkout: every method runs in the sandbox, about 86,500 calls: 6 to 7 minutes on 2 idle cores, 15 to 30 under load; the benchmark's ${first} method${first === 1 ? ' is' : 's are'} checked first and it starts on ${first === 1 ? 'it' : 'them'} while the rest is checked)`,
    );
    const db = connect(undefined, 1);
    const follow = followBuildWithHead(db.db, handle, first, { beside });
    const ready = follow.done.then(
      async (result) => {
        const work = buildWorkLine(result);
        if (work) log(`dataset ${cfg.name}: ${work}`);
        return (await getDataset(db.db, cfg.name))?.status === 'ready' ? ('built' as const) : ('failed' as const);
      },
      (err: unknown) => {
        const e = err as Error & { cause?: Error & { cause?: Error } };
        log(`dataset ${cfg.name}: build FAILED: ${e.cause?.cause?.message ?? e.cause?.message ?? e.message}`);
        return 'failed' as const;
      },
    );
    const head = follow.head.catch(() => [] as string[]);
    void Promise.allSettled([ready, head]).then(() => db.close());
    return { head, ready };
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

/**
 * The judge card of the run's judge, printed before the benchmark: what its scores will be worth. The
 * scripted judge's card is computed here on the validation split, so it needs the finished dataset:
 * without it (`datasetReady` false: the benchmark starts during the build) this returns 'later', and the
 * caller prints it again once the build ends, before the report. A real judge without a stored card
 * returns 'after-report': its card takes minutes on CPU, so the caller computes it after the first
 * (judge-free) report and then renders the report again; or 'check-beside' when a card shipped with the
 * benchmark holds for it: its check needs only the judge and the validation split, so the caller runs it
 * beside the benchmark and renders the report again when both are done.
 */
async function printJudgeCard(
  client: Client,
  judgeModel: string,
  log: (s: string) => void,
  dataset: string,
  datasetReady = true,
): Promise<'done' | 'later' | 'after-report' | 'check-beside'> {
  const h = connect(undefined, 1);
  try {
    let status = await judgeCardStatus(h.db, { judgeModel, coderModel: judgeModel, dataset: dataset });
    const provider = isCheckpointModel(judgeModel) ? 'local' : models().get(judgeModel).provider;
    if (status.status === 'missing' && provider === 'mock' && !datasetReady) {
      log(`judge card of ${judgeModel}: computed once the dataset build ends (on its validation split), before the report`);
      return 'later';
    }
    if (status.status === 'missing' && provider === 'mock') {
      // The scripted judge answers at once: its card costs seconds, so it is computed now.
      log(`judge card of ${judgeModel}: computing it (${DEFAULT_THRESHOLDS.minMethods} validation methods)`);
      await computeJudgeCard(client, judgeModel, dataset, () => undefined).catch((err: unknown) =>
        log(`judge card of ${judgeModel}: FAILED (${failureLine(err)})`),
      );
      status = await judgeCardStatus(h.db, { judgeModel, coderModel: judgeModel, dataset: dataset });
    }
    if (status.status === 'missing') {
      const shipped =
        provider === 'mock' || !datasetReady ? null : await findShippedCard(h.db, { judgeModel, coderModel: judgeModel, dataset, split: 'validation' });
      if (!datasetReady && provider !== 'mock') {
        log(`judge card of ${judgeModel}: none on this machine yet; after the first report the card shipped with the benchmark is checked on a sample`);
        log(`  (${SAMPLE_RULE.methods} methods, ${SHIPPED_TIME_HINT}) if its key holds here, else the card is computed whole (${CARD_TIME_HINT})`);
      } else if (shipped?.status === 'matches') {
        log(
          `judge card of ${judgeModel}: none on this machine yet; the card shipped with the benchmark (${repoPath(shipped.file)}) holds for this judge's weights, prompts and dataset,`,
        );
        log(
          `  so it is re-judged on ${SAMPLE_RULE.methods} of its methods beside the benchmark (${SHIPPED_TIME_HINT}) instead of computed whole (${CARD_TIME_HINT})`,
        );
        log('  the first report shows judge-free measures only; the report is rendered again with the card and its scores when both are done');
        return 'check-beside';
      } else {
        for (const w of shipped?.why ?? []) log(`judge card of ${judgeModel}: shipped card not used: ${w}`);
        log(`judge card of ${judgeModel}: none on this machine yet; it is computed after the first report (${CARD_TIME_HINT}),`);
      }
      log('  so the first report shows judge-free measures only, and the report is then rendered again with the card and its scores');
      return 'after-report';
    }
    for (const line of judgeCardLines(status.card)) log(line);
    return 'done';
  } finally {
    await h.close();
  }
}

/**
 * The card of `judgeModel` for `npm start`: the one shipped with the benchmark when its key holds here and its
 * sample agrees when re-judged, else computed whole (computeJudgeCard).
 */
async function shippedOrComputedCard(client: Client, judgeModel: string, dataset: string, log: (line: string) => void): Promise<void> {
  const check = await checkShippedCard(client, { judgeModel, coderModel: judgeModel, dataset, split: 'validation' }, log);
  if (check.status === 'verified') return;
  await computeJudgeCard(client, judgeModel, dataset, log);
}

/** The card of `judgeModel` (coding too) on the default number of validation methods; its progress to `onProgress`. */
async function computeJudgeCard(client: Client, judgeModel: string, dataset: string, onProgress: (line: string) => void): Promise<void> {
  const methods = DEFAULT_THRESHOLDS.minMethods;
  const handle = await startJudgeCard(client, { judgeModel, coderModel: judgeModel, dataset, split: 'validation', methods });
  await watchCardWorkflow(handle, judgeCardProgressQuery, methods, { out: lineSink(onProgress) });
}

/** How long re-judging a shipped card's sample takes (docs/benchmarks.md). */
const SHIPPED_TIME_HINT = 'for the local 1.5B on 2 CPU cores about 3 minutes (190 s, 2026-12-07)';

/** How long a card takes, measured here (docs/benchmarks.md): the scripted judge seconds, the local 1.5B minutes. */
const CARD_TIME_HINT =
  '20 validation methods; for the local 1.5B on 2 CPU cores about 11 minutes without the code-only and test–retest rungs (2026-12-06), which add about 14 judge requests per method: expect 25 to 40 minutes';

export interface MainJobOptions {
  /** Times the dataset, calibration, benchmark and report stages (`npm start`'s summary). */
  clock?: StageClock;
  /** What the benchmark waits for: the local models (and the default judge) installing and starting beside the build. */
  beforeBenchmark?: Promise<void>;
  /** The start-up dataset and how it is built (default `pau-v1`, all sources; tests use a small slice). */
  dataset?: StartDatasetConfig;
}

export async function runMainJob(
  client: Client,
  log: (s: string) => void = console.log,
  opts: MainJobOptions = {},
): Promise<{ code: number; datasetReady: boolean }> {
  const { clock } = opts;
  const { names, scripted, fallback } = startModels();
  const limit = fallback ? START_ANCHOR_METHODS : START_SAMPLE_METHODS;
  let benchmarkDrawing = false; // the benchmark's progress line is drawn in place: the build's goes out as whole lines
  log('== dataset');
  clock?.start('dataset');
  clock?.start('head');
  const cfg = opts.dataset ?? { name: START_DATASET };
  const dataset = await openDataset(client, log, cfg, limit, () => benchmarkDrawing);
  // The benchmark starts on the build's checked head when there is one, else once the build has ended.
  if (!dataset.head) clock?.end('head', dataset.loaded ? 'loaded, not built' : 'already built');
  const early = dataset.head ? await dataset.head : [];
  const ready = dataset.ready.then((outcome) => {
    clock?.end('dataset', outcome === 'present' ? 'already built' : outcome === 'loaded' ? 'loaded from the shipped file' : undefined);
    return outcome;
  });
  if (early.length > 0) {
    clock?.end('head');
    log(
      `dataset ${cfg.name}: the benchmark's ${early.length === 1 ? 'method is' : `${early.length} methods are`} checked (${early.join(', ')}); the benchmark starts on ${early.length === 1 ? 'it' : 'them'}, the build goes on beside it`,
    );
  } else {
    clock?.end('head', 'none checked first');
    if ((await ready) === 'failed') {
      log('benchmark skipped: no dataset (see the dataset build above; `npm run pau -- dataset build` retries it)');
      return { code: 1, datasetReady: false };
    }
  }
  // The calibration reads the finished test split: before the benchmark when the dataset is there, else
  // as soon as the build ends, beside the benchmark (its report reads it at the end).
  const calibrate = async () => {
    clock?.start('calibration');
    await runStartCalibration(client, log, cfg.name, START_SAMPLE_METHODS);
    clock?.end('calibration');
  };
  const calibrated = early.length === 0 ? await calibrate() : ready.then((o) => (o === 'failed' ? undefined : calibrate()));
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
  const judgeModel = judge.judgeModel;
  const card = judgeModel ? await printJudgeCard(client, judgeModel, log, cfg.name, early.length === 0) : 'done';
  // The card's stage: the shipped card's check, or the whole card when the check disagrees (or none holds).
  const cardStage = (judge: string): Promise<boolean> => {
    clock?.start('card');
    return shippedOrComputedCard(client, judge, cfg.name, (line) => log(`  judge card: ${line}`)).then(
      () => {
        clock?.end('card');
        return true;
      },
      (err: unknown) => {
        clock?.end('card');
        log(`judge card of ${judge}: FAILED (${failureLine(err)}); the report stays judge-free`);
        return false;
      },
    );
  };
  // A shipped card's check starts now, beside the benchmark: its judgments queue with the episodes' on the
  // judge's slots, and the cores an agent leaves idle go to it instead of waiting for the first report.
  const cardBeside =
    card === 'check-beside' && judgeModel
      ? (log(`== judge card (${judgeModel}): the shipped card's check runs beside the benchmark`), cardStage(judgeModel))
      : undefined;
  const cardLater =
    card === 'later' && judgeModel
      ? ready
          .then((o) => (o === 'failed' ? undefined : printJudgeCard(client, judgeModel, log, cfg.name)))
          .then(
            () => undefined,
            (err: unknown) => log(`judge card of ${judgeModel}: FAILED (${failureLine(err)})`),
          )
      : undefined;
  const config: BenchmarkConfig = {
    dataset: cfg.name,
    split: 'test',
    models: names,
    settings: ['interactive', 'in-context'],
    samples: 1,
    limit,
    ...(early.length > 0 ? { methodIds: early } : {}),
    ...(fallback ? { budgets: START_LOCAL_BUDGETS, modelLimits: { [names[0]!]: START_LOCAL_METHODS } } : {}),
    ...judgeFields(judgeModel),
  };
  const runId = newRunId(scripted ? 'start-scripted' : fallback ? 'start-local' : 'start');
  const handle = await startBenchmark(client, runId, config);
  log(
    `run id: ${runId}  (${early.length > 0 ? `${early.length} test method${early.length === 1 ? '' : 's'} checked first` : `${limit} test methods`} × ${names.join(', ')} × interactive, in-context${fallback ? `; ${names[0]} on the first ${START_LOCAL_METHODS === 1 ? 'method' : `${START_LOCAL_METHODS} methods`}` : ''})`,
  );
  log(`workflow: ${benchWorkflowId(runId)}  ${workflowUiLink(benchWorkflowId(runId))}`);
  const h = connect(undefined, 2);
  let reported = false;
  // Once the agents are done, only the judge's server has work left (the episodes' judgments, the card): it
  // gets every core. Its next request restarts it so, and the at most 2 requests then in flight on it are
  // retried (the ledger keeps what was answered); the rest of the judging runs on twice the threads.
  const judgeGetsTheCores = () => {
    if (judgeModel && !isCheckpointModel(judgeModel) && models().get(judgeModel).provider === 'local') setLocalThreads(judgeModel, os.availableParallelism());
  };
  const printReport = async (note?: string) => {
    reported = true;
    log(`== report${note ? ` (${note})` : ''}`);
    const report = await (clock ? clock.time('report', () => fetchReportFiles(h.db, runId)) : fetchReportFiles(h.db, runId));
    log(report.headline);
    log(`report: ${report.htmlPath}`);
    if (report.transcriptsDir) log(`episode transcripts: ${report.transcriptsDir}/`);
  };
  try {
    benchmarkDrawing = true;
    let result: BenchmarkRunResult;
    try {
      // With the judge's card still to compute, the first report is judge-free anyway: it is shown as soon
      // as the episodes end, while their judging goes on.
      result = await watchBenchmark(
        h.db,
        handle,
        runId,
        process.stdout,
        card === 'after-report' || card === 'check-beside'
          ? () => {
              judgeGetsTheCores();
              return printReport('judge-free: the episodes are done, their judging goes on');
            }
          : undefined,
      );
    } finally {
      benchmarkDrawing = false;
    }
    clock?.end('benchmark');
    log(await runSummaryText(h.db, runId));
    log(`benchmark ${runId}: ${result.totals.done} episodes, ${result.totals.failed} failed${scripted ? ' (scripted mock models)' : ''}`);
    if (early.length > 0) {
      const outcome = await ready;
      if (outcome === 'failed') {
        log(`dataset ${cfg.name}: the build failed after the benchmark started (see above); \`npm run pau -- dataset build\` retries it`);
        return { code: 1, datasetReady: false };
      }
      await Promise.all([calibrated, cardLater]);
      log((await headAgainstSplit(h.db, cfg.name, early)).line);
    }
    if (!reported) await printReport();
    if ((card === 'after-report' || card === 'check-beside') && judgeModel) {
      let computed: boolean;
      if (cardBeside) {
        log(`== judge card (${judgeModel}; started beside the benchmark; the report above is rendered again when it is done)`);
        computed = await cardBeside;
      } else {
        log(`== judge card (${judgeModel}; the report above is rendered again when it is done)`);
        judgeGetsTheCores();
        computed = await cardStage(judgeModel);
      }
      if (computed) await printJudgeCard(client, judgeModel, log, cfg.name);
      // Rendered again either way: the first report was written while the episodes were being judged.
      log(computed ? '== report (with the judge card)' : '== report (judged; no card)');
      // Produced anew (not the run's stored report): the report looks its judge's card up when it is made.
      const again = await produceReportFiles(h.db, { runId });
      log(again.headline);
      log(`report: ${again.htmlPath}`);
    }
    return { code: result.totals.failed === result.totals.done ? 1 : 0, datasetReady: true };
  } finally {
    await h.close();
  }
}
