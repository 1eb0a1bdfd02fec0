// Workflows that run one piece of a workflow alone, for the piece tests (test/episode/turnWithOutageWait,
// explorationLoop, inContextAnswer, judgeStep and test/training/grpoRollouts). Bundled on their own
// (pieceWorkers.ts); the activities they reach on `pau` are the tests' own (the sandbox's is the real one).
import { ApplicationFailure } from '@temporalio/common';
import { CancellationScope, sleep } from '@temporalio/workflow';
import type { CallOutcome, EpisodeBudgets, EpisodeInput, EpisodeOutcome, PendingCall, TurnInput, TurnResult } from '../../domain/episode/types';
import { DEFAULT_BUDGETS } from '../../domain/episode/types';
import type { JudgeEpisodeInput, JudgeEpisodeResult } from '../../domain/judge/types';
import type { EpisodeEnd } from '../../workflows/episode/episodeEnd';
import { type EpisodeTally, newTally } from '../../workflows/episode/episodeTally';
import { explorationLoop } from '../../workflows/episode/explorationLoop';
import { inContextAnswer } from '../../workflows/episode/inContextAnswer';
import { judgeStep } from '../../workflows/episode/judgeStep';
import { createModelTurn } from '../../workflows/episode/modelTurn';
import { CANCELLED, turnWithOutageWait } from '../../workflows/episode/turnWithOutageWait';
import { type RolloutsInput, runRollouts } from '../../workflows/training/grpoRollouts';

const TURN: Omit<TurnInput, 'episodeId'> = {
  methodId: 'piece/m',
  model: 'piece-model',
  setting: 'interactive',
  idx: 0,
  observations: [],
  mode: 'explore',
  callsLeft: 1,
  budgets: DEFAULT_BUDGETS,
};

export interface OutageWaitProbeInput {
  episodeId: string;
  model: string;
  waitMs: number;
  /** The first sleep between tries (OutageWait.firstRetryMs; default 5 s). */
  firstRetryMs?: number;
}
export type OutageWaitProbeResult =
  | { end: 'answered'; tries: number; text?: string }
  | { end: 'cancelled'; tries: number }
  | { end: 'failed'; tries: number; type?: string; message: string };

/** One turn through the outage wait; the turn activity (the test's agentTurn) is tried once per try. */
export async function outageWaitProbe(x: OutageWaitProbeInput): Promise<OutageWaitProbeResult> {
  const root = CancellationScope.current();
  return CancellationScope.nonCancellable(async () => {
    const modelTurn = createModelTurn({ episodeId: x.episodeId, localTurns: false, root, modelRetry: { maximumAttempts: 1 } });
    let tries = 0;
    try {
      const r = await turnWithOutageWait(
        (n) => {
          tries = n + 1;
          return modelTurn({ ...TURN, episodeId: x.episodeId, model: x.model }, n);
        },
        { episodeId: x.episodeId, model: x.model, waitMs: x.waitMs, ...(x.firstRetryMs !== undefined ? { firstRetryMs: x.firstRetryMs } : {}), root },
      );
      return r === CANCELLED ? { end: 'cancelled', tries } : { end: 'answered', tries, ...(r.text ? { text: r.text } : {}) };
    } catch (err) {
      return {
        end: 'failed',
        tries,
        ...(err instanceof ApplicationFailure && err.type ? { type: err.type } : {}),
        message: err instanceof Error ? err.message : String(err),
      };
    }
  });
}

/** What a scripted agent answers on one turn: `calls` valid calls, or none. */
export interface ScriptedAnswer {
  answer: TurnResult['answer'];
  calls?: number;
  text?: string;
  /** The episode is cancelled before this turn. */
  cancelled?: boolean;
}
export interface ExplorationProbeInput {
  script: ScriptedAnswer[];
  budgets?: Partial<EpisodeBudgets>;
  inline?: boolean;
}
export interface ExplorationProbeResult {
  end: EpisodeEnd;
  tally: EpisodeTally;
  /** What each turn was sent. */
  sent: { mode: TurnInput['mode']; prompt?: TurnInput['prompt']; callsLeft: number; observations: number; pending: number; entryPoint?: string }[];
  /** The size of each batch of calls run through runCalls. */
  batches: number[];
}

/** The exploration loop with a scripted agent (its turns answered in the workflow) and a stand-in sandbox. */
export async function explorationLoopProbe(x: ExplorationProbeInput): Promise<ExplorationProbeResult> {
  const tally = newTally();
  const budgets = { ...DEFAULT_BUDGETS, ...x.budgets };
  const sent: ExplorationProbeResult['sent'] = [];
  const batches: number[] = [];
  let i = 0;
  const end = await explorationLoop({
    base: { episodeId: 'probe', methodId: 'piece/m', model: 'scripted', setting: 'interactive', budgets },
    budgets,
    code: 'def f(x): return x',
    entryPoint: 'f',
    inline: x.inline ?? false,
    tally,
    turn: async (t) => {
      const a = x.script[i++];
      if (!a) throw ApplicationFailure.nonRetryable(`the script has no turn ${i}`);
      if (a.cancelled) return CANCELLED;
      sent.push({
        mode: t.mode,
        ...(t.prompt ? { prompt: t.prompt } : {}),
        callsLeft: t.callsLeft,
        observations: t.observations.length,
        pending: t.pending?.calls.length ?? 0,
        ...(t.entryPoint ? { entryPoint: t.entryPoint } : {}),
      });
      const calls: PendingCall[] = Array.from({ length: a.calls ?? 0 }, (_, k) => ({ stepIdx: t.idx + 1 + k, toolCallId: `c${k}`, arguments: `(${k},)` }));
      return {
        nextIdx: t.idx + 1 + calls.length,
        calls,
        answer: a.answer,
        ...(a.text ? { text: a.text } : {}),
        tokensIn: 10,
        tokensOut: 2,
        costUsd: 0,
        cached: false,
        problems: 0,
      };
    },
    runCalls: async (calls): Promise<CallOutcome[]> => {
      batches.push(calls.length);
      return calls.map((c) => ({ ...c, result: { ok: true, value: 1, repr: '1', stdout: '', ms: 1 } }));
    },
  });
  return { end, tally, sent, batches };
}

/** A GRPO epoch's rollouts alone (the children are the stand-in episodeWorkflow below). */
export async function rolloutsProbe(x: RolloutsInput): Promise<EpisodeOutcome[]> {
  return runRollouts(x);
}

/** Stands in for the episode workflow as a rollout child: takes a second, then completes. */
export async function episodeWorkflow(input: EpisodeInput): Promise<EpisodeOutcome> {
  await sleep('1 second');
  return { episodeId: input.episodeId, status: 'completed', endReason: 'submitted', callsMade: 0, turns: 1, tokensIn: 0, tokensOut: 0, costUsd: 0 };
}

export interface InContextProbeInput {
  code: string;
  entryPoint: string;
  exampleInputs: string[];
  /** The model's answer text (none: an empty answer); `cancelled`: the episode is cancelled before the turn. */
  text?: string;
  cancelled?: boolean;
}
export interface InContextProbeResult {
  end: EpisodeEnd;
  tally: EpisodeTally;
  /** What the turn was sent, if it ran. */
  sent?: {
    idx: number;
    mode: TurnInput['mode'];
    callsLeft: number;
    signature?: string;
    examples: { stepIdx: number; arguments: string; repr?: string; error?: string }[];
  };
}

/** The in-context answer: the examples run in the real sandbox (pau-sandbox), the model's one turn scripted. */
export async function inContextProbe(x: InContextProbeInput): Promise<InContextProbeResult> {
  const tally = newTally();
  tally.nextIdx = 5;
  let sent: InContextProbeResult['sent'];
  const end = await inContextAnswer({
    base: { episodeId: 'probe', methodId: 'piece/m', model: 'scripted', setting: 'in-context', budgets: DEFAULT_BUDGETS },
    prep: { code: x.code, entryPoint: x.entryPoint, signature: `${x.entryPoint}(x)`, exampleInputs: x.exampleInputs },
    tally,
    turn: async (t) => {
      if (x.cancelled) return CANCELLED;
      sent = {
        idx: t.idx,
        mode: t.mode,
        callsLeft: t.callsLeft,
        ...(t.signature ? { signature: t.signature } : {}),
        examples: (t.examples ?? []).map((e) => ({
          stepIdx: e.stepIdx,
          arguments: e.arguments,
          ...(e.result.ok ? { repr: e.result.repr } : { error: e.result.error.type }),
        })),
      };
      return {
        nextIdx: t.idx + 1,
        calls: [],
        answer: x.text ? 'text' : 'empty',
        ...(x.text ? { text: x.text } : {}),
        tokensIn: 7,
        tokensOut: 3,
        costUsd: 0,
        cached: false,
        problems: 0,
      };
    },
  });
  return { end, tally, ...(sent ? { sent } : {}) };
}

/** The judge step after an episode with this outcome (its child is the stand-in judgeEpisodeWorkflow below). */
export async function judgeStepProbe(x: { input: EpisodeInput; outcome: EpisodeOutcome }): Promise<void> {
  await judgeStep(x.input, x.outcome);
}

/** Stands in for the judge workflow as the judge step's child: fails for an episode id that says so. */
export async function judgeEpisodeWorkflow(input: JudgeEpisodeInput): Promise<JudgeEpisodeResult> {
  if (input.episodeId.includes('judge-fails')) throw ApplicationFailure.nonRetryable('the judge failed (stand-in)');
  return {
    episodeId: input.episodeId,
    judgeModel: input.judgeModel ?? '?',
    score: 5,
    unparsable: false,
    codeMatch: 1,
    statementCoverage: null,
    branchCoverage: null,
    contradictsObserved: null,
  };
}
