// Starting a benchmark run from a client (`bench run`, `rerun --run`, `npm start`): checked before anything
// starts, recorded before the workflow starts. A run id names one run: a new start under a used id is
// refused; `resume` continues that very run with its stored config (episodes that ended are kept).
import { type Client, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, WorkflowIdReusePolicy } from '@temporalio/common';
import { eq } from 'drizzle-orm';
import { resolveMethods } from '../../db/queries/runs';
import { loadCheckpoint } from '../../db/queries/checkpoints';
import { checkpointIdOf } from '../../domain/training/checkpointIds';
import { parseRunConfig } from '../../db/runDocuments';
import { ModelConfigError, models } from '../../config/models';
import type { Db } from '../../db/client';
import { runs } from '../../db/schema/runs';
import { requestedConfig } from '../../domain/bench/runConfig';
import type { BenchmarkConfig } from '../../domain/bench/types';
import { benchWorkflowId } from '../../domain/bench/workflowIds';
import { errorText } from '../../domain/temporal/errorText';
import type { benchmarkRunWorkflow } from '../../workflows/bench/benchmarkRunWorkflow';
import { startBenchmark, withDeploymentDefaults } from './starters';
import { noRun } from '../lib/notFound';

/** A start that was refused before anything ran; the message says why (the CLI exits 2 with it). */
export class StartRefused extends Error {}

/** Unknown models, an unknown dataset or method, an empty split: the reason, or undefined when the config can start. */
export async function startProblem(db: Db, config: BenchmarkConfig): Promise<string | undefined> {
  for (const m of [...config.models, ...(config.judgeModel ? [config.judgeModel] : [])]) {
    // A `ckpt:<id>` is no registry entry: it names a registered checkpoint (served on its base's stack).
    const checkpointId = checkpointIdOf(m);
    if (checkpointId !== undefined) {
      if (!(await loadCheckpoint(db, checkpointId)))
        return `unknown model ${JSON.stringify(m)}: no checkpoint ${JSON.stringify(checkpointId)} is registered (sft train and grpo train register theirs)`;
      continue;
    }
    try {
      models().get(m);
    } catch (err) {
      if (err instanceof ModelConfigError) return err.message;
      throw err;
    }
  }
  try {
    await resolveMethods(db, config);
  } catch (err) {
    if (err instanceof ApplicationFailure) return err.message;
    throw err;
  }
  return undefined;
}

async function workflowRunning(client: Client, workflowId: string): Promise<boolean> {
  try {
    return (await client.workflow.getHandle(workflowId).describe()).status.name === 'RUNNING';
  } catch {
    return false;
  }
}

export interface LaunchedRun {
  handle: WorkflowHandle<typeof benchmarkRunWorkflow>;
  config: BenchmarkConfig;
  resumed: boolean;
}

/** Validates, records the `runs` row (status `pending`), then starts the workflow. A used run id is refused. */
export async function launchBenchmark(client: Client, db: Db, runId: string, given: BenchmarkConfig): Promise<LaunchedRun> {
  // The defaults startBenchmark would add, here already: the row stored below must hold the run's config.
  const config = withDeploymentDefaults(given);
  const [existing] = await db.select().from(runs).where(eq(runs.id, runId)).limit(1);
  if (existing)
    throw new StartRefused(
      `run id ${runId} is already used (a ${existing.kind} run, ${existing.status}, created ${existing.createdAt.toISOString()}); choose another --run-id, or continue that run with its stored config: --run-id ${runId} --resume`,
    );
  const problem = await startProblem(db, config);
  if (problem) throw new StartRefused(problem);
  const inserted = await db
    .insert(runs)
    .values({ id: runId, kind: 'benchmark', status: 'pending', config, workflowId: benchWorkflowId(runId) })
    .onConflictDoNothing()
    .returning({ id: runs.id });
  if (inserted.length === 0) throw new StartRefused(`run id ${runId} was taken by another start just now`);
  try {
    return { handle: await startBenchmark(client, runId, config, { reusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE }), config, resumed: false };
  } catch (err) {
    await db
      .update(runs)
      .set({ status: 'failed', error: `could not start: ${errorText(err)}`, finishedAt: new Date(), updatedAt: new Date() })
      .where(eq(runs.id, runId));
    throw err;
  }
}

/** Continues a stopped run with its stored config; episodes that already ended are counted, not run again. */
export async function resumeBenchmark(client: Client, db: Db, runId: string): Promise<LaunchedRun> {
  const [existing] = await db.select().from(runs).where(eq(runs.id, runId)).limit(1);
  if (!existing) throw noRun(runId);
  if (existing.kind !== 'benchmark') throw new StartRefused(`run ${runId} is a ${existing.kind} run, not a benchmark`);
  if (await workflowRunning(client, benchWorkflowId(runId))) throw new StartRefused(`run ${runId} is still running (${benchWorkflowId(runId)})`);
  const stored = requestedConfig(parseRunConfig('benchmark', existing.config, runId));
  const problem = await startProblem(db, stored);
  if (problem) throw new StartRefused(`run ${runId} cannot resume: ${problem}`);
  await db.update(runs).set({ status: 'pending', error: null, updatedAt: new Date() }).where(eq(runs.id, runId));
  return { handle: await startBenchmark(client, runId, stored, { resume: true }), config: stored, resumed: true };
}

/** A run workflow's failure as one line (its cause chain), not a stack trace. */
export function failureLine(err: unknown): string {
  if (err instanceof WorkflowFailedError) return errorText(err.cause ?? err);
  return errorText(err);
}
