// The interactive setting: the agent calls the method, sees the results and writes its description. Each
// turn sends the previous turn's observations; when the calls or the turns are used up the agent is asked
// for its final description (domain/episode/finalAsk.ts), and turns without progress end the episode early.
import { deprecatePatch } from '@temporalio/workflow';
import { afterFinalAnswer, finalAskPrompt, submittedEndReason } from '../../domain/episode/finalAsk';
import { type CallOutcome, DEFAULT_BUDGETS, type EpisodeBudgets, type PendingCall, type TurnInput } from '../../domain/episode/types';
import type { SandboxLimits } from '../../domain/sandbox/schemas';
import type { EpisodeEnd, Turn, TurnBase } from './episodeEnd';
import { addTurn, type EpisodeTally } from './episodeTally';
import { CANCELLED } from './turnWithOutageWait';

export interface ExplorationLoopInput {
  base: TurnBase;
  budgets: EpisodeBudgets;
  /** The method's code and entry point (a turn that runs the calls itself, or a re-ask, needs them). */
  code: string;
  entryPoint: string;
  /** The name the agent reads (the re-ask names the function) when not the entry point: `f` with names anonymised. */
  shownEntryPoint?: string;
  /**
   * Placement `inline`: a step's calls run at the start of the next model turn, in the same activity, instead
   * of through `runCalls` (an activity of their own on `pau-sandbox`).
   */
  inline: boolean;
  sandboxLimits?: SandboxLimits;
  turn: Turn;
  /** Runs a step's calls (not called with none). */
  runCalls: (calls: PendingCall[]) => Promise<CallOutcome[]>;
  /** Updated as turns run and calls are made (the caller reports it, also after a failure). */
  tally: EpisodeTally;
}

export async function explorationLoop(x: ExplorationLoopInput): Promise<EpisodeEnd> {
  const { base, budgets, tally } = x;
  const limits = x.sandboxLimits ? { limits: x.sandboxLimits } : {};
  let observations: CallOutcome[] = [];
  let pending: PendingCall[] = [];
  let prompt: TurnInput['prompt'];
  let mode: TurnInput['mode'] = 'explore';
  let idleTurns = 0;
  let lastProse: string | null = null;
  let reasked = false;
  for (;;) {
    // The turn boundary: a cancelled episode stops here (its last observations are not sent).
    const r = await x.turn({
      ...base,
      idx: tally.nextIdx,
      observations,
      ...(pending.length > 0 ? { pending: { calls: pending, code: x.code, entryPoint: x.entryPoint, ...limits } } : {}),
      ...(prompt ? { prompt } : {}),
      ...(prompt?.kind === 'reask' ? { entryPoint: x.shownEntryPoint ?? x.entryPoint } : {}),
      mode,
      callsLeft: budgets.maxCalls - tally.callsMade,
    });
    if (r === CANCELLED) return { endReason: 'cancelled', finalDescription: null };
    addTurn(tally, r);
    observations = [];
    pending = [];
    prompt = undefined;
    if (r.answer === 'submitted') return { endReason: submittedEndReason(mode, reasked), finalDescription: r.text ?? null };
    if (mode === 'final') {
      // Retired patch (docs/operations.md): every recorded history that reaches here re-asks.
      if (r.answer !== 'text' && !reasked) deprecatePatch('final-reask');
      const step = afterFinalAnswer(r, reasked);
      if ('end' in step) return step.end;
      reasked = true;
      prompt = step.reask;
      continue;
    }
    // No progress (no call to run, no description) for maxIdleTurns turns in a row: end early rather than burn
    // the turn budget, keeping the latest plain-text answer, if any, as the description.
    idleTurns = r.calls.length > 0 ? 0 : idleTurns + 1;
    if (r.answer === 'text') lastProse = r.text ?? null;
    if (idleTurns >= (budgets.maxIdleTurns ?? DEFAULT_BUDGETS.maxIdleTurns)) {
      deprecatePatch('no-progress-end');
      return { endReason: 'no_progress', finalDescription: lastProse };
    }
    if (x.inline) pending = r.calls;
    else if (r.calls.length > 0) observations = await x.runCalls(r.calls);
    tally.callsMade += r.calls.length;
    if (r.calls.length === 0 && r.answer !== 'empty_submission' && r.answer !== 'problems_only') prompt = { kind: 'nudge', reason: r.answer };
    const final = finalAskPrompt(budgets, tally.callsMade, tally.turns);
    if (final) {
      mode = 'final';
      prompt = final;
    }
  }
}
