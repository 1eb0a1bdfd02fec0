// The ranges of an episode's budgets, in-context k and outage wait, and the check of an episode's input against them.
// The CLI's flags (`--max-calls`, `--max-turns`, `--max-idle-turns`, `--k`, `--outage-wait`) take these ranges, and
// prepareEpisode refuses an input outside them (BadEpisodeInput) whoever started the episode. Pure.
import { z } from 'zod';
import { type NumberRange, rangeSchema, rangesSchema, schemaProblems, wholeRange } from '../common/numberRange';
import type { EpisodeBudgets, EpisodeInput } from './types';

/**
 * Ten times the default budgets (20 calls, 20 turns: DEFAULT_BUDGETS), which are the paper's. Every call
 * and turn is a model request and a sandbox run, and each call's observation stays in the conversation, so
 * a budget past this outgrows any model's context long before it ends.
 */
export const BUDGET_RANGES: Record<keyof EpisodeBudgets, NumberRange> = {
  maxCalls: wholeRange(1, 200),
  maxTurns: wholeRange(1, 200),
  maxIdleTurns: wholeRange(1, 200),
};

/**
 * In-context examples per episode: as many as the largest call budget (k defaults to the call budget). It
 * is also the typed generator's hard bound for them (domain/inputs/generator.ts): generating k examples
 * costs up to 25 k attempts, which at k = 200 is well under a second.
 */
export const IN_CONTEXT_K_RANGE = wholeRange(0, BUDGET_RANGES.maxCalls.max);

/** How long an episode waits out an outage of its model or Postgres (default 6 h): up to a week, an outage over a weekend. */
export const OUTAGE_WAIT_RANGE = wholeRange(0, 7 * 86_400, 'seconds');

const episodeBoundsSchema = z.looseObject({
  budgets: rangesSchema(BUDGET_RANGES).optional(),
  k: rangeSchema(IN_CONTEXT_K_RANGE).optional(),
  outageWaitSeconds: rangeSchema(OUTAGE_WAIT_RANGE).optional(),
});

/** What in an episode's budgets, k and outage wait is out of range (`budgets.maxCalls must be ...`); empty: nothing. */
export function episodeBoundsProblems(input: Pick<EpisodeInput, 'budgets' | 'k' | 'outageWaitSeconds'>): string[] {
  return schemaProblems(episodeBoundsSchema, input);
}
