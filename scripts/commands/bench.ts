// `pau bench run ...`: start a benchmark run, show live progress, print the summary when it completes.
// `pau bench status RUN_ID`: progress of a run from Postgres.
import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import type { z } from 'zod';
import type { Db } from '../../db/client';
import type { BenchmarkRunResult } from '../../domain/bench/types';
import { sameRunConfig } from '../../domain/bench/runConfig';
import { benchSummary } from '../client/starters';
import { runProgress } from '../../db/queries/runs';
import type { BenchmarkConfig } from '../../domain/bench/types';
import { models } from '../../config/models';
import { workflowUiLink } from '../../config/services';
import { connectClient } from '../../config/temporal';
import { connect } from '../../db/client';
import { parseCommandArgs, UsageError } from '../lib/args';
import { noRun } from '../lib/notFound';
import { benchRunOptions } from '../options/bench';
import { judgeFromArgs, requireMethodsOfSplit, selectionConfig } from '../lib/benchArgs';
import { checkJudgeCard } from '../client/judgeCard';
import { benchWorkflowId } from '../../domain/bench/workflowIds';
import { newRunId, progressLine, waitingText, watchBenchmark } from '../client/bench';
import { failureLine, launchBenchmark, type LaunchedRun, resumeBenchmark, StartRefused } from '../client/benchStart';
import { runSummaryText } from '../client/benchSummary';
import { judgeFields } from '../client/judgeChoice';
import { fetchReportFiles } from '../client/report';
import { isCheckpointModel } from '../../domain/training/checkpointIds';

const runSchema = benchRunOptions.schema;

export function configFromArgs(v: z.infer<typeof runSchema>): BenchmarkConfig {
  const budgets = {
    ...(v['max-calls'] ? { maxCalls: v['max-calls'] } : {}),
    ...(v['max-turns'] ? { maxTurns: v['max-turns'] } : {}),
    ...(v['max-idle-turns'] ? { maxIdleTurns: v['max-idle-turns'] } : {}),
  };
  const params = { ...(v.temperature !== undefined ? { temperature: v.temperature } : {}), ...(v.seed !== undefined ? { seed: v.seed } : {}) };
  return {
    ...selectionConfig(v, v.dataset),
    ...(v.methods ? { methodIds: v.methods } : {}),
    ...(Object.keys(budgets).length > 0 ? { budgets } : {}),
    ...(v.k !== undefined ? { k: v.k } : {}),
    ...(v['in-context-examples'] ? { inContextExamples: v['in-context-examples'] } : {}),
    // Stored only when anonymised: a run's config without it is the original setting, as every earlier run's.
    ...(v.names === 'anonymised' ? { names: v.names } : {}),
    ...(v.window ? { window: v.window } : {}),
    ...(Object.keys(params).length > 0 ? { params } : {}),
    ...(v.replay ? { replay: true } : {}),
    ...(v['outage-wait'] !== undefined ? { outageWaitSeconds: v['outage-wait'] } : {}),
  };
}

export async function run(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  if (action === 'models') {
    const reg = models();
    for (const name of reg.names()) {
      const m = reg.get(name);
      console.log(
        `${name.padEnd(24)} ${m.provider === 'mock' ? `scripted mock (${m.model}) — not a real LLM` : `${m.model} @ ${m.baseUrl}`}  concurrency ${m.maxConcurrency}`,
      );
    }
    console.log('(also: mock-<policy> for any scripted policy; see docs/models.md)');
    return 0;
  }
  if (action === 'status') {
    const [runId, ...more] = rest;
    if (!runId || more.length > 0) throw new UsageError('status takes one RUN_ID');
    const h = connect(undefined, 1);
    try {
      const p = await runProgress(h.db, runId);
      if (!p) throw noRun(runId);
      console.log(`${runId}: ${p.status}`);
      console.log(progressLine(p, p.startedAt?.getTime() ?? Date.now(), p.finishedAt?.getTime() ?? Date.now()));
      if (p.waiting.length > 0) console.log(waitingText(p));
      console.log(await runSummaryText(h.db, runId));
      console.log(`UI: ${workflowUiLink(benchWorkflowId(runId))}`);
      return 0;
    } finally {
      await h.close();
    }
  }
  if (action !== 'run') throw new UsageError(`unknown action ${JSON.stringify(action ?? '')}`);
  const { values, positionals } = parseCommandArgs(rest, benchRunOptions);
  if (positionals.length > 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
  if (values.resume && !values['run-id']) throw new UsageError('--resume needs --run-id ID (the run to continue)');
  const base = configFromArgs(values);
  const judge = await judgeFromArgs(values);
  const requested: BenchmarkConfig = { ...base, ...judgeFields(judge), ...(values['allow-unqualified-judge'] ? { allowUnqualifiedJudge: true } : {}) };
  const runId = values['run-id'] ?? newRunId();
  const client = await connectClient();
  const h = connect(undefined, 2);
  try {
    // Named methods must be of the run's split (the test split is the benchmark's own: allowed).
    if (requested.methodIds && !values.resume) {
      await requireMethodsOfSplit(h.db, 'bench run', {
        dataset: requested.dataset,
        split: requested.split,
        methodIds: requested.methodIds,
        allowTestSplit: true,
      });
    }
    // The judge's card: a failed one refuses the run (exit 2) unless --allow-unqualified-judge.
    const cardLines =
      judge.judgeModel && !values.resume
        ? await checkJudgeCard(h.db, { judgeModel: judge.judgeModel, dataset: requested.dataset, allowUnqualified: values['allow-unqualified-judge'] ?? false })
        : [];
    let launched: LaunchedRun;
    try {
      launched = values.resume ? await resumeBenchmark(client, h.db, runId) : await launchBenchmark(client, h.db, runId, requested);
    } catch (err) {
      if (!(err instanceof StartRefused)) throw err;
      console.error(`pau bench: ${err.message}`);
      return 2;
    }
    const { handle, config } = launched;
    if (launched.resumed && !sameRunConfig(config, requested)) console.log(`note: --resume uses the run's stored config: ${benchSummary(config)}`);
    console.log(`run id: ${runId}${launched.resumed ? ' (resumed with its stored config; episodes that ended are kept)' : ''}`);
    console.log(`workflow: ${handle.workflowId}  ${workflowUiLink(handle.workflowId)}`);
    if (config.models.some((m) => !isCheckpointModel(m) && models().get(m).provider === 'mock'))
      console.log('note: mock-* models are the scripted mock server, not real LLMs.');
    console.log(judge.note);
    for (const line of cardLines) console.log(line);
    if (values.detach) return 0;
    return await watchToEnd(h.db, handle, runId, values['report-dir']);
  } finally {
    await h.close();
    await client.connection.close();
  }
}

/** Watches a started run to its end: the summary and report, or the cause of a failure (no stack trace). */
export async function watchToEnd(db: Db, handle: LaunchedRun['handle'], runId: string, reportDir?: string): Promise<number> {
  let result: BenchmarkRunResult;
  try {
    result = await watchBenchmark(db, handle, runId);
  } catch (err) {
    if (err instanceof WorkflowFailedError && err.cause instanceof CancelledFailure) {
      console.error(`run ${runId} cancelled; continue it with: npm run pau -- rerun --run ${runId}`);
      return 1;
    }
    if (!(err instanceof WorkflowFailedError)) throw err;
    console.error(`run ${runId} failed: ${failureLine(err)}`);
    return 1;
  }
  console.log(await runSummaryText(db, runId));
  const status = (await runProgress(db, runId))?.status ?? 'unknown';
  console.log(`run ${runId}: ${status}, ${result.totals.done} episodes, ${result.totals.failed} failed`);
  const report = await fetchReportFiles(db, runId, reportDir);
  console.log(`\n${report.headline}`);
  console.log(`report: ${report.htmlPath}`);
  return result.totals.failed > 0 && result.totals.failed === result.totals.done ? 1 : 0;
}
