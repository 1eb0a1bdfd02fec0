// The final ask of an interactive episode, as decisions (pure, workflow-safe): when the budgets send the
// agent to its final description, what an answer to that ask ends the episode with, and the one re-ask
// after a final answer that carried no description (workflows/episode/explorationLoop.ts runs them).
import type { AnswerKind, EpisodeBudgets, TurnInput, TurnMode } from './types';

/** The final ask once the calls or the turns are used up; none while budget is left. */
export function finalAskPrompt(budgets: Pick<EpisodeBudgets, 'maxCalls' | 'maxTurns'>, callsMade: number, turns: number): TurnInput['prompt'] {
  if (callsMade >= budgets.maxCalls) return { kind: 'final', reason: `You have used all ${budgets.maxCalls} calls.` };
  if (turns >= budgets.maxTurns) return { kind: 'final', reason: `You have used all ${budgets.maxTurns} turns.` };
  return undefined;
}

/** The end reason of an episode whose agent submitted its description. */
export function submittedEndReason(mode: TurnMode, reasked: boolean): string {
  return reasked ? 'submitted_after_reask' : mode === 'final' ? 'submitted_after_final_ask' : 'submitted';
}

export type FinalAnswerStep =
  /** Ask once more, without tools, saying why (the answer's kind). */
  | { reask: { kind: 'reask'; reason: AnswerKind } }
  /** The episode ends here: a plain-text answer is the description, any other answer leaves none. */
  | { end: { endReason: string; finalDescription: string | null } };

/**
 * An answer (not a submission) to the final ask or to its re-ask. A plain-text answer counts as the
 * description; an answer with none (calls that can no longer run, an empty or refused message) is asked
 * once more, then the episode ends without a description.
 */
export function afterFinalAnswer(answer: { answer: AnswerKind; text?: string | null }, reasked: boolean): FinalAnswerStep {
  if (answer.answer !== 'text' && !reasked) return { reask: { kind: 'reask', reason: answer.answer } };
  const after = reasked ? 'after_reask' : 'after_final_ask';
  if (answer.answer === 'text') return { end: { endReason: `answered_in_text_${after}`, finalDescription: answer.text ?? null } };
  return { end: { endReason: reasked ? `no_description_after_reask_${answer.answer}` : `no_description_${answer.answer}`, finalDescription: null } };
}
