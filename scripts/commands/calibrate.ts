// `pau calibrate [--dataset pau-v1] [--split test] [--limit N] [--window 4] [--run-id ID]`: the calibration
// suite, independent of any judge model: code match of each method's original against itself (must be
// 1.0), of small mutants of it (operator swap, constant change, off-by-one, swapped branch; generated from
// its AST in the sandbox), of constant functions (the floor) and of the identity function. Stored in the
// run's row (kind `calibration`); reports of benchmark runs on the same split show the latest one.
// `pau calibrate ladder` is retired: the judge card (`pau calibrate judge`) measures its ladder (gold >= partial
// >= wrong >= empty, "monotone ladder") with the other checks; the verb exits 2 saying so.
// `pau calibrate judge --judge M`: the judge card; `pau calibrate critic --critic M [--run RUN | --dataset D
// --split S] [--episodes N]`: the GRPO critic's card (domain/training/criticCard.ts). Both exit 1 when not qualified.
import { WorkflowFailedError } from '@temporalio/client';
import { workflowUiLink } from '../../config/services';
import { connectClient } from '../../config/temporal';
import { closeSharedDb, getDb } from '../../db/client';
import { calibrationRows } from '../../domain/calibration/summarize';
import { calibrationWorkflowId } from '../../domain/calibration/workflowIds';
import { printTable } from '../../domain/report/table';
import { newRunId } from '../client/bench';
import { calibrationProgress, startCalibration } from '../client/calibration';
import { parseCommandArgs, UsageError } from '../lib/args';
import { calibrateOptions, criticCardOptions, judgeCardOptions } from '../options/calibrate';
import { requireKnownModels } from '../lib/benchArgs';
import { judgeCardLines } from '../../domain/judge/cardSummary';
import { startCriticCard, startJudgeCard } from '../client/starters';
import { criticCardLines } from '../../domain/training/criticCard';
import { cardLine } from '../client/cardWatch';
import { watchWorkflow } from '../client/watchWorkflow';
import { watchCardWorkflow } from '../client/judgeCard';
import { judgeCardProgressQuery } from '../../workflows/judge/judgeCardQueries';
import { criticCardProgressQuery } from '../../workflows/training/criticCardQueries';
import { failureLine } from '../client/benchStart';

/** `pau calibrate judge`: computes (or reuses) the judge card of a judge and code writer, prints it; exit 1 when either is not qualified. */
async function judgeCard(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, judgeCardOptions);
  if (positionals.length > 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
  const coder = values.coder ?? values.judge;
  requireKnownModels([values.judge, coder]);
  const client = await connectClient();
  const started = Date.now();
  try {
    const handle = await startJudgeCard(client, {
      judgeModel: values.judge,
      coderModel: coder,
      dataset: values.dataset,
      split: values.split,
      methods: values.methods,
      window: values.window,
      force: values.force,
      format: values.format,
      ...(values.skip > 0 ? { skip: values.skip } : {}),
      ...(values['code-all-rungs'] ? { codeAllRungs: true } : {}),
      ...(values['coder-samples'] > 1 ? { coderSamples: values['coder-samples'] } : {}),
      ...(values['min-methods'] ? { thresholds: { minMethods: values['min-methods'] } } : {}),
    });
    console.log(
      `judge card of ${values.judge} (format ${values.format}; coder ${coder}) on ${values.methods} methods of ${values.dataset}/${values.split}${values.skip > 0 ? ` after the first ${values.skip}` : ''}: ${workflowUiLink(handle.workflowId)}`,
    );
    let card: Awaited<ReturnType<typeof handle.result>>;
    try {
      card = await watchCardWorkflow(handle, judgeCardProgressQuery, values.methods);
    } catch (err) {
      if (!(err instanceof WorkflowFailedError)) throw err;
      console.error(`\njudge card failed: ${failureLine(err)}`);
      return 1;
    }
    console.log(
      `card computed in ${((Date.now() - started) / 1000).toFixed(0)} s${card.failedMethods > 0 ? ` (${card.failedMethods} method(s) failed and are left out)` : ''}`,
    );
    for (const line of judgeCardLines({ ...card, rows: [] })) console.log(line);
    return card.judgeQualified && card.coderQualified ? 0 : 1;
  } finally {
    await client.connection.close();
    await closeSharedDb();
  }
}

/** `pau calibrate critic`: computes (or reuses) the critic card of a critic model, prints it; exit 1 when not qualified. */
async function criticCard(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, criticCardOptions);
  if (positionals.length > 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
  requireKnownModels([values.critic]);
  const client = await connectClient();
  const started = Date.now();
  try {
    const handle = await startCriticCard(client, {
      criticModel: values.critic,
      ...(values.run ? { runId: values.run } : {}),
      dataset: values.dataset,
      split: values.split,
      episodes: values.episodes,
      window: values.window,
      force: values.force,
      format: values.format,
      ...(values.skip > 0 ? { skip: values.skip } : {}),
      ...(values['min-episodes'] ? { thresholds: { minEpisodes: values['min-episodes'] } } : {}),
    });
    console.log(
      `critic card of ${values.critic} (${values.format}) on ${values.episodes} recorded episodes of ${values.run ? `run ${values.run}` : `${values.dataset}/${values.split}`}${values.skip > 0 ? ` after the first ${values.skip}` : ''}: ${workflowUiLink(handle.workflowId)}`,
    );
    let card: Awaited<ReturnType<typeof handle.result>>;
    try {
      card = await watchCardWorkflow(handle, criticCardProgressQuery, values.episodes, { unit: 'episodes' });
    } catch (err) {
      if (!(err instanceof WorkflowFailedError)) throw err;
      console.error(`\ncritic card failed: ${failureLine(err)}`);
      return 1;
    }
    console.log(
      `card computed in ${((Date.now() - started) / 1000).toFixed(0)} s${card.failedEpisodes > 0 ? ` (${card.failedEpisodes} episode(s) failed and are left out)` : ''}`,
    );
    for (const line of criticCardLines(card)) console.log(line);
    return card.qualified ? 0 : 1;
  } finally {
    await client.connection.close();
    await closeSharedDb();
  }
}

/** What `pau calibrate ladder` prints before it exits 2: the verb is retired, and what replaced it. */
const LADDER_RETIRED =
  'pau calibrate: `ladder` is retired (2026-12-07): the judge card measures the same ladder (gold >= partial >= wrong >= empty: "monotone ladder") beside its other checks; run `npm run pau -- calibrate judge --judge M`';

export async function run(argv: string[]): Promise<number> {
  if (argv[0] === 'ladder') {
    console.error(LADDER_RETIRED);
    return 2;
  }
  if (argv[0] === 'judge') return judgeCard(argv.slice(1));
  if (argv[0] === 'critic') return criticCard(argv.slice(1));
  const { values, positionals } = parseCommandArgs(argv, calibrateOptions);
  if (positionals.length > 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
  const runId = values['run-id'] ?? newRunId('calibrate');
  const client = await connectClient();
  try {
    const handle = await startCalibration(client, runId, {
      dataset: values.dataset,
      split: values.split,
      ...(values.limit ? { limit: values.limit } : {}),
      ...(values.window ? { window: values.window } : {}),
    });
    console.log(`calibration ${runId}: ${workflowUiLink(calibrationWorkflowId(runId))}`);
    const started = Date.now();
    // The suite's count of methods calibrated, all of them since this start (resumed: 0).
    const count = async () => {
      const p = await calibrationProgress(getDb(), runId);
      return p && p.total > 0 ? { done: p.done, total: p.total, resumed: 0 } : null;
    };
    const summary = await watchWorkflow(handle, cardLine(count, 0), { pollMs: { tty: 2000, plain: 2000 }, plainMinIntervalMs: 0 });
    console.log(`calibrated ${summary.methods} methods in ${((Date.now() - started) / 1000).toFixed(0)} s (run ${runId})`);
    printTable(['control', 'value', 'expected'], calibrationRows(summary));
    if (summary.excluded.length > 0) {
      console.log(`\nexcluded (${summary.excluded.length}):`);
      for (const e of summary.excluded.slice(0, 20)) console.log(`  ${e.methodId}: ${e.reason}`);
    }
    return summary.originalMean !== null && summary.originalMean < 1 ? 1 : 0;
  } finally {
    await client.connection.close();
    await closeSharedDb();
  }
}
