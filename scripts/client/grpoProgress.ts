// The live line of `pau grpo train` (and of `grpo report` on a running run): the epoch, the stage the
// workflow says it is in and for how long, the epoch's rollouts, and during the evaluation its benchmark
// run's episodes. An epoch's later stages (critic, update, evaluation) last longer than its rollouts, so a
// line of rollout counts alone would stand still for most of the run.
import type { Db } from '../../db/client';
import { countRollouts, loadGrpoRun } from '../../db/queries/grpoReportData';
import { runProgress, type RunProgress } from '../../db/queries/runs';
import { type GrpoProgress, grpoEvalRunId } from '../../domain/training/grpo';
import { fmtDuration } from './bench';

export interface GrpoProgressFacts {
  runId: string;
  epochs: number;
  /** Epochs recorded as done. */
  epochsDone: number;
  perEpoch: number;
  rollouts: { done: number; running: number };
  elapsedMs: number;
  /** The workflow's answer (null: not asked, or the run has ended). */
  stage: GrpoProgress | null;
  /** The epoch's evaluation run while the stage is `evaluate`. */
  evaluation: RunProgress | null;
  now: number;
}

/** The line: ETA from the epochs done so far (`?` before the first has ended). */
export function grpoProgressText(f: GrpoProgressFacts): string {
  const inEpoch = Math.max(0, f.rollouts.done - f.epochsDone * f.perEpoch);
  const eta = f.epochsDone > 0 ? fmtDuration((f.elapsedMs / f.epochsDone) * (f.epochs - f.epochsDone)) : '?';
  const stage = f.stage ? `: ${f.stage.stage} ${fmtDuration(f.now - f.stage.stageStartedAt)}` : '';
  const e = f.evaluation;
  const evaluation =
    f.stage?.stage === 'evaluate' && e
      ? ` (${e.done}/${e.total} episodes${e.judging ? `, judged ${e.judging.judged}/${e.judging.completed}` : ''}${e.running > 0 ? `, ${e.running} running` : ''})`
      : '';
  return `${f.runId}: epoch ${Math.min(f.epochsDone + 1, f.epochs)}/${f.epochs}${stage}${evaluation}  rolled out ${Math.min(inEpoch, f.perEpoch)}/${f.perEpoch} (${f.rollouts.running} running)  elapsed ${fmtDuration(f.elapsedMs)}  ETA ${eta}`;
}

/** The line from Postgres and, given `askStage` (the run's `grpoProgressQuery`), the workflow's stage (a failed query leaves it out). */
export async function grpoProgressLine(db: Db, runId: string, started: number, askStage?: () => Promise<GrpoProgress>): Promise<string> {
  const run = await loadGrpoRun(db, runId);
  if (!run) return `${runId}: starting`;
  const stage = askStage ? await askStage().catch(() => null) : null;
  const evaluation = stage?.stage === 'evaluate' ? ((await runProgress(db, grpoEvalRunId(runId, stage.epoch))) ?? null) : null;
  const now = Date.now();
  return grpoProgressText({
    runId,
    epochs: run.config.epochs,
    epochsDone: run.epochs.length,
    perEpoch: run.config.methodsPerEpoch * run.config.group,
    rollouts: await countRollouts(db, runId),
    elapsedMs: now - (run.startedAt?.getTime() ?? started),
    stage,
    evaluation,
    now,
  });
}
