// What the SFT run report reads from Postgres: the run's row (kind sft), whose summary the workflow fills
// (training figures, checkpoint, evaluation run, the comparison with the base).
import { eq } from 'drizzle-orm';
import type { Db } from '../client';
import { runs } from '../schema/runs';
import type { SftReportDocument } from '../../domain/report/sftReport';
import type { SftComparison } from '../../domain/report/sftComparison';
import type { SftTrainConfig, SftTrainingFigures } from '../../domain/training/sftTrain';

interface SftRunSummary {
  checkpointModel?: string;
  training?: SftTrainingFigures;
  evalRunId?: string | null;
  comparison?: SftComparison;
}

/** The SFT run's report document, or undefined when there is no SFT run of that id. */
export async function loadSftReport(db: Db, runId: string): Promise<SftReportDocument | undefined> {
  const [r] = await db.select().from(runs).where(eq(runs.id, runId)).limit(1);
  if (!r || r.kind !== 'sft') return undefined;
  const s = (r.summary ?? {}) as SftRunSummary;
  return {
    kind: 'sft',
    runId,
    status: r.status,
    generatedAt: new Date().toISOString(),
    config: r.config as SftTrainConfig,
    checkpointModel: s.checkpointModel ?? null,
    training: s.training ?? null,
    evalRunId: s.evalRunId ?? null,
    comparison: s.comparison ?? null,
    error: r.error,
  };
}
