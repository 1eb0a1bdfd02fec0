// The checkpoint registry and the SFT run's bookkeeping in Postgres (queue `pau`). A checkpoint row is
// written once per trainer job: its id is derived from the job id, so a retried registration (or one after
// a worker was killed) upserts the same row with the same values instead of adding a second.
import { ApplicationFailure } from '@temporalio/common';
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { checkpointFiles } from '../../db/schema/blobs';
import { runs } from '../../db/schema/runs';
import { checkpoints } from '../../db/schema/training';
import { callingWorkflowId } from '../common/workflowContext';
import { loadEpisodeRows, judgeModelsOf } from '../../db/queries/reportRows';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import { compareWithBase, type SftComparison } from '../../domain/report/sftComparison';
import { type SftTrainConfig, sftTrainConfigProblems } from '../../domain/training/sftTrain';
import type { CheckpointRecord } from '../../domain/training/checkpointRecord';
import { loadSftDataset } from '../../db/queries/sftData';
import type { Checkpoint } from '../../db/queries/checkpoints';

/** Upserts the checkpoint's row and, when given, its stored files (blobs already in the store), in one transaction. */
export async function registerCheckpointRow(db: Db, c: CheckpointRecord): Promise<Checkpoint> {
  const { files, ...record } = c;
  const values = { ...record, config: record.config ?? null, metrics: record.metrics ?? null };
  const { id: _id, ...set } = values;
  return db.transaction(async (tx) => {
    const [row] = await tx.insert(checkpoints).values(values).onConflictDoUpdate({ target: checkpoints.id, set }).returning();
    for (const f of files ?? []) {
      await tx
        .insert(checkpointFiles)
        .values({ checkpointId: c.id, name: f.name, sha256: f.sha256, bytes: f.bytes })
        .onConflictDoUpdate({ target: [checkpointFiles.checkpointId, checkpointFiles.name], set: { sha256: f.sha256, bytes: f.bytes } });
    }
    return row!;
  });
}

export interface FinishRunInput {
  runId: string;
  status: 'completed' | 'failed';
  summary: Record<string, unknown>;
  error?: string;
}

/** A training run's end: status, error, and the summary merged into what it already holds. */
export async function finishRunRow(db: Db, input: FinishRunInput): Promise<void> {
  const now = new Date();
  await db
    .update(runs)
    .set({
      status: input.status,
      summary: sql`coalesce(${runs.summary}, '{}'::jsonb) || ${JSON.stringify(input.summary)}::jsonb`,
      error: input.error ?? null,
      finishedAt: now,
      updatedAt: now,
    })
    .where(eq(runs.id, input.runId));
}

export function createCheckpointActivities(db: () => Db) {
  return {
    /** The SFT run's row (kind sft); checks its config's ranges, and that its data set exists and has examples. */
    async startSftRun(input: { runId: string; config: SftTrainConfig }): Promise<{ examples: number }> {
      const problems = sftTrainConfigProblems(input.config);
      if (problems.length > 0) throw ApplicationFailure.nonRetryable(`run ${input.runId}: ${problems.join('; ')}`, FAILURE_TYPES.badRunConfig);
      const d = db();
      const ds = await loadSftDataset(d, input.config.data);
      if (!ds) {
        throw ApplicationFailure.nonRetryable(
          `SFT data set ${JSON.stringify(input.config.data)} does not exist (build it with pau sft build --name ${input.config.data})`,
          FAILURE_TYPES.sftDatasetNotFound,
        );
      }
      const kept = ds.summary?.kept ?? 0;
      if (kept === 0) throw ApplicationFailure.nonRetryable(`SFT data set ${input.config.data} has no examples`, FAILURE_TYPES.sftDatasetEmpty);
      const now = new Date();
      await d
        .insert(runs)
        .values({ id: input.runId, kind: 'sft', status: 'running', config: input.config, workflowId: callingWorkflowId(), startedAt: now })
        .onConflictDoUpdate({ target: runs.id, set: { status: 'running', config: input.config, workflowId: callingWorkflowId(), updatedAt: now } });
      return { examples: kept };
    },

    /** One row per trainer job (idempotent). */
    async registerCheckpoint(input: CheckpointRecord): Promise<{ id: string }> {
      const row = await registerCheckpointRow(db(), input);
      return { id: row.id };
    },

    /** The checkpoint beside its base in the evaluation run; stored in the SFT run's summary. */
    async compareSftWithBase(input: {
      runId: string;
      evalRunId: string;
      checkpointModel: string;
      baseModel: string;
      judgeModel?: string;
    }): Promise<SftComparison> {
      const d = db();
      const judgeModel = input.judgeModel ?? (await judgeModelsOf(d, input.evalRunId))[0]?.judgeModel ?? null;
      const rows = await loadEpisodeRows(d, input.evalRunId, judgeModel);
      const comparison = compareWithBase(rows, { ...input, judgeModel });
      await d
        .update(runs)
        .set({ summary: sql`coalesce(${runs.summary}, '{}'::jsonb) || ${JSON.stringify({ comparison })}::jsonb`, updatedAt: new Date() })
        .where(eq(runs.id, input.runId));
      return comparison;
    },

    async finishSftRun(input: FinishRunInput): Promise<void> {
      await finishRunRow(db(), input);
    },
  };
}
