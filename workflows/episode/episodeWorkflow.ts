// One episode: a model probes one method (interactive) or reads its examples (in-context) and writes a
// description. The conversation lives in Postgres; this workflow carries step indices, pending calls and
// totals only. Failures of the episode itself are recorded in `episodes` and returned, not thrown, so a
// benchmark run never fails because one episode did. The pieces: a turn (modelTurn.ts) waited out through
// outages (turnWithOutageWait.ts), the setting's loop (explorationLoop.ts, inContextAnswer.ts), the judge
// step (judgeStep.ts).
import { CancellationScope, deprecatePatch, log, patched, upsertSearchAttributes } from '@temporalio/workflow';
import { DEFAULT_OUTAGE_WAIT_SECONDS } from '../../domain/episode/outageWait';
import { DEFAULT_BUDGETS, type EpisodeInput, type EpisodeOutcome } from '../../domain/episode/types';
import { errorText } from '../../domain/temporal/errorText';
import { PauOutcome } from '../../domain/temporal/searchAttributes';
import { db } from '../proxies/mainQueue';
import type { EpisodeEnd, Turn, TurnBase } from './episodeEnd';
import { newTally, outcomeOf } from './episodeTally';
import { explorationLoop } from './explorationLoop';
import { inContextAnswer } from './inContextAnswer';
import { judgeStep } from './judgeStep';
import { createModelTurn } from './modelTurn';
import { runStepCalls } from './sandboxBatch';
import { turnWithOutageWait } from './turnWithOutageWait';

export async function episodeWorkflow(input: EpisodeInput): Promise<EpisodeOutcome> {
  // A cancellation of this episode (its run was cancelled) is noticed at the next turn boundary: the work
  // runs in a non-cancellable scope, so a model call or a sandbox batch in flight finishes and is recorded.
  const root = CancellationScope.current();
  return CancellationScope.nonCancellable(() => runEpisode(input, root));
}

async function runEpisode(input: EpisodeInput, root: CancellationScope): Promise<EpisodeOutcome> {
  const budgets = { ...DEFAULT_BUDGETS, ...input.budgets };
  const tally = newTally();
  const base: TurnBase = {
    episodeId: input.episodeId,
    methodId: input.methodId,
    model: input.model,
    setting: input.setting,
    budgets,
    ...(input.params ? { params: input.params } : {}),
    ...(input.replay ? { replay: true } : {}),
    ...(input.names === 'anonymised' ? { names: input.names } : {}),
  };
  let outcome: EpisodeOutcome;
  let end: EpisodeEnd | undefined;
  try {
    const prep = await db.prepareEpisode(input);
    tally.nextIdx = prep.nextIdx;
    // Retired patch (docs/operations.md): every recorded history whose model answers quickly has its marker.
    if (prep.localTurns === true) deprecatePatch('local-agent-turn');
    const modelTurn = createModelTurn({
      episodeId: input.episodeId,
      localTurns: prep.localTurns === true,
      root,
      ...(input.modelRetry ? { modelRetry: input.modelRetry } : {}),
    });
    const wait = {
      episodeId: input.episodeId,
      model: input.model,
      waitMs: (input.outageWaitSeconds ?? DEFAULT_OUTAGE_WAIT_SECONDS) * 1000,
      ...(input.outageFirstRetrySeconds !== undefined ? { firstRetryMs: input.outageFirstRetrySeconds * 1000 } : {}),
      root,
    };
    const turn: Turn = (t) => turnWithOutageWait((tries) => modelTurn(t, tries), wait);
    if (input.setting === 'in-context') {
      end = await inContextAnswer({ base, prep, ...(input.sandboxLimits ? { sandboxLimits: input.sandboxLimits } : {}), turn, tally });
    } else {
      // Placement `inline` (a sandbox on the pau workers' host; retired patch, docs/operations.md).
      const inline = input.sandbox === 'inline';
      if (inline) deprecatePatch('sandbox-inline-step');
      end = await explorationLoop({
        base,
        budgets,
        code: prep.code,
        entryPoint: prep.entryPoint,
        ...(prep.shown ? { shownEntryPoint: prep.shown.entryPoint } : {}),
        inline,
        ...(input.sandboxLimits ? { sandboxLimits: input.sandboxLimits } : {}),
        turn,
        runCalls: (calls) => runStepCalls(prep.code, prep.entryPoint, calls, input.sandboxLimits),
        tally,
      });
    }
    outcome = outcomeOf(input.episodeId, end.endReason === 'cancelled' ? 'cancelled' : 'completed', end.endReason, tally);
  } catch (err) {
    log.warn('episode failed', { episodeId: input.episodeId, error: errorText(err) });
    outcome = { ...outcomeOf(input.episodeId, 'failed', 'error', tally), error: errorText(err).slice(0, 4000) };
  }
  await db.finishEpisode({
    ...outcome,
    finalDescription: end?.finalDescription ?? null,
    ...(outcome.status === 'completed' ? { nextIdx: tally.nextIdx } : {}),
  });
  // Kept patch (docs/operations.md): histories recorded before the outcome search attribute replay without it.
  if (patched('episode-outcome-search-attribute')) upsertSearchAttributes([{ key: PauOutcome, value: outcome.status }]);
  await judgeStep(input, outcome);
  return outcome;
}
