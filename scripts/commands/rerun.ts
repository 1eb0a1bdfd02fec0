// `pau rerun WORKFLOW_ID`: reset a failed workflow to just before its first failure (history kept).
// `pau rerun --run RUN_ID --failed`: rerun only the failed episodes of a run; finished ones are kept.
// `pau rerun --run RUN_ID`: continue a run that stopped (cancelled, terminated, timed out) with its stored
// config; episodes that ended are counted, not run again.
import { and, eq } from 'drizzle-orm';
import { runs } from '../../db/schema/runs';
import type { RerunFailedResult } from '../../workflows/ops/rerunFailedEpisodesWorkflow';
import { startRerun } from '../client/starters';
import { workflowUiLink } from '../../config/services';
import { connectClient } from '../../config/temporal';
import { connect, type Db } from '../../db/client';
import { type LaunchedRun, resumeBenchmark, StartRefused } from '../client/benchStart';
import { reconcileRuns } from '../ops/reconcile';
import { watchToEnd } from './bench';
import { parseCommandArgs, UsageError } from '../lib/args';
import { rerunOptions } from '../options/rerun';
import { runEpisodes } from '../ops/runsQuery';
import { runSends } from '../../db/queries/ledger';
import { resetToBeforeFailure } from '../ops/resetToFailure';
import { fetchReportFiles } from '../client/report';
import { isNotFound, NotFoundError, requireRun } from '../lib/notFound';

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, rerunOptions);
  const client = await connectClient();
  try {
    if (values.run) {
      if (positionals.length > 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
      const h = connect(undefined, 2);
      try {
        await requireRun(h.db, values.run);
        for (const r of await reconcileRuns(client, h.db, [values.run]))
          console.log(`run ${r.runId}: ${r.reason}; marked ${r.runStatus} (${r.episodes} unfinished episode(s) marked cancelled)`);
        if (!values.failed) return await continueRun(client, h.db, values.run);
      } finally {
        await h.close();
      }
      return await rerunFailed(client, values.run);
    }
    const [workflowId, ...more] = positionals;
    if (!workflowId || more.length > 0 || values.failed) throw new UsageError('give one WORKFLOW_ID, or --run RUN_ID --failed');
    const r = await resetToBeforeFailure(client, workflowId).catch((err: unknown) => {
      if (isNotFound(err)) throw new NotFoundError(`no workflow ${JSON.stringify(workflowId)} (its id is in the Web UI, or \`runs show RUN\`)`);
      throw err;
    });
    console.log(`${workflowId}: first failure at event ${r.failedEventId} (${r.failure})`);
    console.log(`reset to after event ${r.workflowTaskFinishEventId}; steps before it are kept, the failed one runs again`);
    console.log(`new run ${r.newRunId}  ${workflowUiLink(workflowId, r.newRunId)}`);
    const h = connect(undefined, 2);
    try {
      // The steps that marked the run failed are undone by the reset, but its row is not: reopen it, so
      // `runs list` and the progress lines show it running until the workflow finishes it again.
      for (const id of await reopenFailedRunOf(h.db, workflowId)) console.log(`run ${id}: failed -> running`);
    } finally {
      await h.close();
    }
    return 0;
  } finally {
    await client.connection.close();
  }
}

async function continueRun(client: Awaited<ReturnType<typeof connectClient>>, db: Db, runId: string): Promise<number> {
  let launched: LaunchedRun;
  try {
    launched = await resumeBenchmark(client, db, runId);
  } catch (err) {
    if (!(err instanceof StartRefused)) throw err;
    console.error(`pau rerun: ${err.message}`);
    return 2;
  }
  console.log(`run ${runId}: continuing with its stored config; episodes that ended are kept`);
  console.log(`workflow ${launched.handle.workflowId}  ${workflowUiLink(launched.handle.workflowId)}`);
  return watchToEnd(db, launched.handle, runId);
}

async function rerunFailed(client: Awaited<ReturnType<typeof connectClient>>, runId: string): Promise<number> {
  const h = connect(undefined, 2);
  try {
    const failed = await runEpisodes(h.db, runId, 'failed');
    if (failed.length === 0) {
      console.log(`run ${runId}: no failed episodes; nothing to rerun`);
      return 0;
    }
    const started = new Date();
    const sendsBefore = await runSends(h.db, runId);
    const workflowId = `rerun/${runId}/${started.toISOString().replace(/[:.]/g, '-')}`;
    console.log(`run ${runId}: rerunning ${failed.length} failed episode(s); completed episodes are kept`);
    const handle = await startRerun(client, workflowId, { runId }, failed.length);
    console.log(`workflow ${workflowId}  ${workflowUiLink(workflowId)}`);
    let last = '';
    const timer = setInterval(() => {
      void runEpisodes(h.db, runId, 'failed').then((still) => {
        const line = `  still failed or not yet rerun: ${still.length}/${failed.length}`;
        if (line !== last) {
          last = line;
          console.log(line);
        }
      });
    }, 2000);
    let result: RerunFailedResult;
    try {
      result = await handle.result();
    } finally {
      clearInterval(timer);
    }
    // What the rerun sent, from the ledger (a send counts only when its bytes left: a refused connection is none).
    const sendsAfter = await runSends(h.db, runId);
    const sent = sendsAfter.sends - sendsBefore.sends;
    const answered = sendsAfter.answered - sendsBefore.answered;
    console.log(`rerun done: ${result.completed} of ${result.rerun} now completed, ${result.stillFailed} still failed`);
    console.log(`run ${runId}: ${result.run.done}/${result.run.total} episodes done, ${result.run.failed} failed`);
    console.log(`new model calls made: ${sent} (${answered} answered, ${sent - answered} not); the rest were answered from the llm_calls cache`);
    // The report the rerun stored at its end, written as files: it counts the episodes that now completed.
    const report = await fetchReportFiles(h.db, runId);
    console.log(`\n${report.headline}`);
    console.log(`report: ${report.htmlPath}`);
    return result.stillFailed > 0 ? 1 : 0;
  } finally {
    await h.close();
  }
}

async function reopenFailedRunOf(db: Db, workflowId: string): Promise<string[]> {
  const rows = await db
    .update(runs)
    .set({ status: 'running', error: null, finishedAt: null, updatedAt: new Date() })
    .where(and(eq(runs.workflowId, workflowId), eq(runs.status, 'failed')))
    .returning({ id: runs.id });
  return rows.map((r) => r.id);
}
