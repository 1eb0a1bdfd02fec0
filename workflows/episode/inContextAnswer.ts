// The in-context setting: the method runs on the example inputs, and the model answers once from the
// examples and their results (no calls of its own).
import type { CallOutcome, PreparedEpisode } from '../../domain/episode/types';
import type { SandboxLimits } from '../../domain/sandbox/schemas';
import type { EpisodeEnd, Turn, TurnBase } from './episodeEnd';
import { addTurn, type EpisodeTally } from './episodeTally';
import { runSandboxBatch } from './sandboxBatch';
import { CANCELLED } from './turnWithOutageWait';

export interface InContextAnswerInput {
  base: TurnBase;
  prep: Pick<PreparedEpisode, 'code' | 'entryPoint' | 'signature' | 'exampleInputs' | 'shown'>;
  sandboxLimits?: SandboxLimits;
  turn: Turn;
  tally: EpisodeTally;
}

export async function inContextAnswer(x: InContextAnswerInput): Promise<EpisodeEnd> {
  const { prep, tally } = x;
  const examples = (await runSandboxBatch(prep.code, prep.entryPoint, prep.exampleInputs, x.sandboxLimits)).map(
    (result, i): CallOutcome => ({ stepIdx: tally.nextIdx + i, arguments: prep.exampleInputs[i]!, result }),
  );
  const r = await x.turn({
    ...x.base,
    idx: tally.nextIdx + examples.length,
    observations: [],
    examples,
    // The examples' lines and the signature name the function as the agent sees it.
    signature: prep.shown?.signature ?? prep.signature,
    entryPoint: prep.shown?.entryPoint ?? prep.entryPoint,
    mode: 'answer',
    callsLeft: 0,
  });
  if (r === CANCELLED) return { endReason: 'cancelled', finalDescription: null };
  addTurn(tally, r);
  return { endReason: r.text ? 'answered' : r.answer, finalDescription: r.text ?? null };
}
