// What the SFT run report reads from Postgres: the run's row (kind sft), whose summary the workflow fills
// (training figures, checkpoint, evaluation run, the comparison with the base).
import { eq } from 'drizzle-orm';
import type { Db } from '../client';
import { runs } from '../schema/runs';
import { parseRunConfig, parseRunSummary } from '../runDocuments';
import type { SftReportDocument } from '../../domain/trainingReport/sftReport';
import { runJudgeCard } from './judgeCards';

/** The SFT run's report document, or undefined when there is no SFT run of that id. */
export async function loadSftReport(db: Db, runId: string): Promise<SftReportDocument | undefined> {
  const [r] = await db.select().from(runs).where(eq(runs.id, runId)).limit(1);
  if (!r || r.kind !== 'sft') return undefined;
  const s = parseRunSummary('sft', r.summary, runId) ?? {};
  // The evaluation is a benchmark run: its judge's card, with that run's judge fields, decides what the comparison shows.
  const judgeModel = s.comparison?.judgeModel ?? null;
  const [evalRun] = s.evalRunId && judgeModel ? await db.select().from(runs).where(eq(runs.id, s.evalRunId)).limit(1) : [];
  const judgeCard = evalRun && judgeModel ? await runJudgeCard(db, evalRun, judgeModel) : undefined;
  return {
    kind: 'sft',
    runId,
    status: r.status,
    generatedAt: new Date().toISOString(),
    config: parseRunConfig('sft', r.config, runId),
    checkpointModel: s.checkpointModel ?? null,
    training: s.training ?? null,
    evalRunId: s.evalRunId ?? null,
    comparison: s.comparison ?? null,
    error: r.error,
    ...(judgeCard ? { judgeCard } : {}),
  };
}
