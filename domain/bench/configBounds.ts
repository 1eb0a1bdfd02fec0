// Whether a benchmark run's config can run: its numbers in their ranges and its method limits for its own
// models. The CLI's flags take the same ranges; startRun checks every config again (BadRunConfig), so a
// schedule's or an API caller's config that skipped the CLI is refused before any episode starts. Pure.
import { z } from 'zod';
import type { BenchmarkConfig } from './types';
import { rangeSchema, schemaProblems, wholeRange } from '../common/numberRange';
import { episodeBoundsProblems } from '../episode/bounds';
import { SEED_RANGE, TEMPERATURE_RANGE } from '../llm/modelParams';
import { modelLimitProblems } from './episodeSlots';

/** The first N methods of a split (`--limit`): more than any source here has records (CodeAlpaca's 20,022). */
export const METHOD_LIMIT_RANGE = wholeRange(1, 100_000);
/** Episodes per method, model and setting (`--samples`). */
export const SAMPLES_RANGE = wholeRange(1, 100);
/**
 * Episodes in flight at once (`--window`): each is a child workflow, and Temporal refuses more than 2,000
 * pending children per workflow by default (limit.numPendingChildExecutions).
 */
export const WINDOW_RANGE = wholeRange(1, 1_000);

const runBoundsSchema = z.looseObject({
  samples: rangeSchema(SAMPLES_RANGE),
  limit: rangeSchema(METHOD_LIMIT_RANGE).optional(),
  window: rangeSchema(WINDOW_RANGE).optional(),
  params: z.looseObject({ temperature: rangeSchema(TEMPERATURE_RANGE).optional(), seed: rangeSchema(SEED_RANGE).optional() }).optional(),
});

/** What keeps a config from running (a number out of its range, a method limit for a model it does not run); empty: nothing. */
export function runConfigProblems(config: BenchmarkConfig): string[] {
  return [...schemaProblems(runBoundsSchema, config), ...episodeBoundsProblems(config), ...modelLimitProblems(config)];
}
