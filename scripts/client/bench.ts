// Starting a benchmark run and watching it: shared by `pau bench run`, `npm start` and the tests.
import type { WorkflowHandle } from '@temporalio/client';
import type { BenchmarkRunResult } from '../../domain/bench/types';
import { runProgress, type RunProgress } from '../../db/queries/runs';
import { workflowUiLink } from '../../config/services';
import type { Db } from '../../db/client';
import { watchWorkflow } from './watchWorkflow';

export function newRunId(prefix = 'bench'): string {
  const t = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${prefix}-${t}-${Math.random().toString(36).slice(2, 6)}`;
}

export function fmtDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '--:--';
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

export function progressLine(p: RunProgress, startedMs: number, now = Date.now(), width = 28): string {
  const frac = p.total > 0 ? Math.min(1, p.done / p.total) : 0;
  const filled = Math.round(frac * width);
  const bar = `${'#'.repeat(filled)}${'-'.repeat(width - filled)}`;
  const elapsed = now - startedMs;
  // With a judge, the work left is episodes to run and completed episodes to judge (judging goes on after the
  // last episode ends): the ETA spreads the time so far over both.
  const j = p.judging;
  const workDone = p.done + (j?.judged ?? 0);
  const workLeft = p.total - p.done + (j ? Math.max(0, j.completed - j.judged) : 0);
  const eta = workLeft === 0 ? 0 : workDone > 0 ? (elapsed / workDone) * workLeft : NaN;
  const tokens = p.tokensIn + p.tokensOut;
  const judged = j ? `  judged ${j.judged}/${j.completed}` : '';
  const line = `[${bar}] ${p.done}/${p.total} episodes  failed ${p.failed}${p.cancelled > 0 ? `  cancelled ${p.cancelled}` : ''}  running ${p.running}${judged}  tokens ${tokens.toLocaleString('en-US')}  cost $${p.costUsd.toFixed(4)}  elapsed ${fmtDuration(elapsed)}  ETA ${fmtDuration(eta)}`;
  return p.waiting.length > 0 ? `${line}  ${waitingText(p, now)}` : line;
}

/** `WAITING for model m (3 episodes, unreachable 4:10)`: an outage being waited out. */
export function waitingText(p: Pick<RunProgress, 'waiting'>, now = Date.now()): string {
  return p.waiting.map((w) => `WAITING for model ${w.model} (${w.episodes} episode(s), unreachable ${fmtDuration(now - w.since.getTime())})`).join('  ');
}

/**
 * Waits for the run, redrawing a progress line (in place on a terminal, every 10 s otherwise) from
 * Postgres. Returns the workflow's result; throws if the run workflow failed.
 */
export async function watchBenchmark(
  db: Db,
  handle: WorkflowHandle<(input: unknown) => Promise<BenchmarkRunResult>>,
  runId: string,
  out: NodeJS.WriteStream = process.stdout,
  /** Called once when every planned episode has ended, while judging may go on (npm start's judge-free first report). */
  onEpisodesEnded?: () => Promise<void>,
): Promise<BenchmarkRunResult> {
  const started = Date.now();
  let ended = false;
  let endedCalled = false;
  const line = async () => {
    const p = await runProgress(db, runId);
    if (!p) return '';
    ended = p.total > 0 && p.done >= p.total;
    return progressLine(p, p.startedAt ? Math.min(p.startedAt.getTime(), started) : started);
  };
  return watchWorkflow(handle, line, {
    out,
    pollMs: { tty: 500, plain: 2000 },
    plainMinIntervalMs: 10_000,
    finalLine: true,
    afterLine: async (endLine) => {
      if (!onEpisodesEnded || endedCalled || !ended) return;
      endedCalled = true;
      endLine();
      await onEpisodesEnded();
    },
  });
}

export { workflowUiLink };
