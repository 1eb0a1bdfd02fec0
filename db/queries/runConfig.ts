// A run's judge fields (domain/judge/config.ts RunJudgeFields), read from its config and merged into it:
// the CLI's `pau judge` reads the stored code writer and records a forced self-judging this way.
import { eq } from 'drizzle-orm';
import type { Db } from '../client';
import { runs } from '../schema/runs';
import { parseRunConfig } from '../runDocuments';
import { parseRunJudgeFields } from '../runJudgeFields';
import type { RunJudgeFields } from '../../domain/judge/config';

/** The run's judge fields; undefined when there is no such run. */
export async function runJudgeFieldsOf(db: Db, runId: string): Promise<RunJudgeFields | undefined> {
  const [row] = await db.select({ kind: runs.kind, config: runs.config }).from(runs).where(eq(runs.id, runId));
  return row && parseRunJudgeFields(row.kind, row.config, runId);
}

/**
 * Merges `merge(held)` into the config of a run with judge fields (a benchmark, a GRPO run), its other
 * fields kept as stored; the row is locked between the read and the write so two merges do not lose each
 * other's pairs. A missing run, or one of another kind (it holds no episodes to judge), is left alone.
 */
export async function mergeRunJudgeFields(db: Db, runId: string, merge: (held: RunJudgeFields) => Pick<RunJudgeFields, 'selfJudge'>): Promise<void> {
  await db.transaction(async (tx) => {
    const [row] = await tx.select({ kind: runs.kind, config: runs.config }).from(runs).where(eq(runs.id, runId)).for('update');
    if (!row || (row.kind !== 'benchmark' && row.kind !== 'grpo')) return;
    const held = parseRunConfig(row.kind, row.config, runId);
    await tx
      .update(runs)
      .set({ config: { ...held, ...merge(held) }, updatedAt: new Date() })
      .where(eq(runs.id, runId));
  });
}
