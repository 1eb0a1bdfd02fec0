// `pau runs list [--failed]`, `pau runs show RUN_ID` and `pau runs cancel RUN_ID`: runs and their episodes,
// with UI links. Before listing, runs whose workflow Temporal no longer runs are reconciled (their rows
// marked), so a run is never shown running when it is not.
import type { Client } from '@temporalio/client';
import { eq } from 'drizzle-orm';
import { runProgress } from '../../db/queries/runs';
import { workflowUiLink } from '../../config/services';
import { connectClient } from '../../config/temporal';
import { connect, type Db } from '../../db/client';
import { runs } from '../../db/schema/runs';
import { benchWorkflowId } from '../../domain/bench/workflowIds';
import { errorText } from '../../domain/temporal/errorText';
import { parseCommandArgs, UsageError } from '../lib/args';
import { runsCancelOptions, runsListOptions, runsShowOptions } from '../options/runs';
import { printTable } from '../../domain/report/table';
import { listRuns, runEpisodes } from '../ops/runsQuery';
import { printEpisode } from '../ops/episodeTranscript';
import { paidTwice } from '../../db/queries/ledger';
import { reconcileRuns } from '../ops/reconcile';
import { waitingText } from '../client/bench';
import { noRun, requireRun } from '../lib/notFound';

/** Reconciles with Temporal when it answers; says so (and shows the rows as stored) when it does not. */
async function reconciled(db: Db, runIds?: string[]): Promise<Client | undefined> {
  let client: Client;
  try {
    client = await connectClient();
  } catch (err) {
    console.error(`runs: Temporal is not reachable (${errorText(err)}); statuses are as last recorded in Postgres`);
    return undefined;
  }
  for (const r of await reconcileRuns(client, db, runIds))
    console.error(`runs: ${r.runId}: ${r.reason}; marked ${r.runStatus} (${r.episodes} unfinished episode(s) marked cancelled)`);
  return client;
}

export async function run(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  const h = connect(undefined, 2);
  let client: Client | undefined;
  try {
    if (action === 'list') {
      const { values, positionals } = parseCommandArgs(rest, runsListOptions);
      if (positionals.length > 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
      client = await reconciled(h.db);
      const rows = await listRuns(h.db, { failedOnly: values.failed ?? false, limit: values.limit ?? 50 });
      if (rows.length === 0) {
        console.log(values.failed ? 'no run has failures' : 'no runs yet');
        return 0;
      }
      printTable(
        ['run', 'kind', 'status', 'episodes', 'completed', 'failed', 'cancelled', 'running', 'created'],
        rows.map((r) => [
          r.id,
          r.kind,
          r.status,
          r.episodes,
          r.completed,
          r.failed,
          r.cancelled,
          r.running,
          r.createdAt.toISOString().slice(0, 19).replace('T', ' '),
        ]),
      );
      return 0;
    }
    if (action === 'show') {
      const { values, positionals } = parseCommandArgs(rest, runsShowOptions);
      const [runId, ...more] = positionals;
      if (!runId || more.length > 0) throw new UsageError('show takes one RUN_ID');
      if (values.episode) {
        await requireRun(h.db, runId);
        return await printEpisode(h.db, runId, values.episode, values.full ?? false);
      }
      client = await reconciled(h.db, [runId]);
      const [run] = await h.db.select().from(runs).where(eq(runs.id, runId)).limit(1);
      if (!run) throw noRun(runId);
      console.log(`run ${run.id} (${run.kind}): ${run.status}${run.error ? ` — ${run.error}` : ''}`);
      if (run.workflowId) console.log(`  workflow ${run.workflowId}  ${workflowUiLink(run.workflowId)}`);
      const progress = await runProgress(h.db, runId);
      if (progress && progress.waiting.length > 0) {
        console.log(`  ${waitingText(progress)}`);
        for (const w of progress.waiting) if (w.error) console.log(`    last error: ${w.error.split('\n')[0]?.slice(0, 200)}`);
      }
      const paid = await paidTwice(h.db, runId);
      console.log(
        `  model calls paid twice: ${paid.calls} call(s), ${paid.extraSends} extra send(s), ~$${paid.costUsd.toFixed(4)}; sent and unanswered: ${paid.unanswered}`,
      );
      const eps = await runEpisodes(h.db, runId);
      const byStatus = new Map<string, number>();
      for (const e of eps) byStatus.set(e.status, (byStatus.get(e.status) ?? 0) + 1);
      printTable(
        ['status', 'episodes'],
        [...byStatus.entries()].sort().map(([s, n]) => [s, n]),
      );
      const shown = values.all ? eps : eps.filter((e) => e.status !== 'completed');
      if (shown.length > 0) {
        console.log(values.all ? '\nepisodes:' : '\nepisodes not completed (--all lists every one):');
        for (const e of shown) {
          console.log(`  ${e.status.padEnd(9)} ${e.methodId} · ${e.model} · ${e.setting} · ${e.sample}${e.endReason ? `  (${e.endReason})` : ''}`);
          if (e.error) console.log(`            error: ${e.error.split('\n')[0]?.slice(0, 200)}`);
          if (e.workflowId) console.log(`            ${workflowUiLink(e.workflowId)}`);
        }
      }
      if ((byStatus.get('failed') ?? 0) > 0) console.log(`\nrerun the failed ones: npm run pau -- rerun --run ${runId} --failed`);
      if (run.status === 'cancelled' || (byStatus.get('cancelled') ?? 0) > 0)
        console.log(`continue the run (finished episodes are kept): npm run pau -- rerun --run ${runId}`);
      return 0;
    }
    if (action === 'cancel') {
      const { values, positionals } = parseCommandArgs(rest, runsCancelOptions);
      const [runId, ...more] = positionals;
      if (!runId || more.length > 0) throw new UsageError('cancel takes one RUN_ID');
      return await cancelRun(h.db, runId, values.wait);
    }
    throw new UsageError(`unknown action ${JSON.stringify(action ?? '')}`);
  } finally {
    await client?.connection.close();
    await h.close();
  }
}

/**
 * Asks the run's workflow to cancel: it starts no more episodes, episodes in flight stop at their next
 * turn boundary, and the run is marked `cancelled`. Waits up to `waitSeconds` for that to finish.
 */
async function cancelRun(db: Db, runId: string, waitSeconds: number): Promise<number> {
  const [run] = await db.select().from(runs).where(eq(runs.id, runId)).limit(1);
  if (!run) throw noRun(runId);
  const client = await connectClient();
  try {
    const handle = client.workflow.getHandle(benchWorkflowId(runId));
    const status = await handle
      .describe()
      .then((d) => d.status.name)
      .catch(() => 'NOT_FOUND');
    if (status !== 'RUNNING') {
      const rec = await reconcileRuns(client, db, [runId]);
      console.log(`run ${runId}: its workflow is not running (${status}); run status ${rec[0]?.runStatus ?? run.status}`);
      return 0;
    }
    await handle.cancel();
    console.log(`run ${runId}: cancellation requested; episodes in flight stop at their next turn boundary`);
    const closed = await Promise.race([
      handle.result().then(
        () => true,
        () => true,
      ),
      new Promise<false>((r) => setTimeout(() => r(false), waitSeconds * 1000)),
    ]);
    if (!closed) {
      console.log(`run ${runId}: still stopping after ${waitSeconds} s (a turn in flight); \`runs show ${runId}\` shows when it is done`);
      return 0;
    }
    await reconcileRuns(client, db, [runId]);
    const p = await runProgress(db, runId);
    console.log(`run ${runId}: ${p?.status ?? 'unknown'}; ${p?.done ?? 0} episodes ended, ${p?.cancelled ?? 0} cancelled`);
    console.log(`continue it later (finished episodes are kept): npm run pau -- rerun --run ${runId}`);
    return 0;
  } finally {
    await client.connection.close();
  }
}
