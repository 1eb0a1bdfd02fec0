// The execution critic's evidence and ratings (domain/training/execCritic.ts): the method's alternatives
// generated in the sandbox (activities/calibration/mutants.py, critic_hypotheses), then step by step the
// method run on the step's new calls with coverage and every alternative still standing run on them too.
// Runs on this worker's sandbox pool (as a model turn's inline calls do), so `criticRollout` stays one
// activity on `pau` and the GRPO workflow is unchanged. Ratings are cached per step key in
// exec_critic_steps: a rollout rated again runs nothing.
import fs from 'node:fs';
import { ApplicationFailure } from '@temporalio/common';
import { eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { parseJsonb } from '../../db/jsonb';
import { methods } from '../../db/schema/datasets';
import { execCriticSteps } from '../../db/schema/training';
import { parseCandidates } from '../../domain/calibration/candidates';
import { constantReprs } from '../../domain/calibration/codeMatch';
import { entryPointOf } from '../../domain/dataset/entryPoint';
import { isLimit } from '../../domain/sandbox/errorTypes';
import { redoSandboxErrors } from '../../domain/sandbox/redoSandboxErrors';
import { mergeCoverage } from '../../domain/sandbox/coverage';
import type { BatchResult, CallResult, Coverage, Outcome } from '../../domain/sandbox/schemas';
import { FAILURE_TYPES } from '../../domain/temporal/failureTypes';
import {
  EXEC_CONSTANTS,
  EXEC_CRITIC_VERSION,
  type ExecAlternative,
  type ExecMethodKey,
  type ExecStepRating,
  execStepKey,
  execStepRatings,
  execStepRatingSchema,
  HYPOTHESES_ENTRY,
  hypothesesCall,
  isEvidence,
  METHOD_DOES_NOT_IMPORT,
  survivors,
  unratedSteps,
} from '../../domain/training/execCritic';
import { GENERATOR_PATH } from '../calibration/activities';
import { currentActivity } from '../common/workflowContext';
import { createSandboxActivities, type RunMethodBatchInput } from '../sandbox/index';

export interface ExecCriticDeps {
  db: () => Db;
  /** Runs one batch (default: this process's sandbox pool, through the `runMethodBatch` activity's code). */
  runBatch?: (input: RunMethodBatchInput) => Promise<BatchResult>;
}

/** An alternative as this module runs it: its source, and the outcomes it gathers. */
interface RunAlternative extends ExecAlternative {
  source: string;
  outcomes: Map<string, Outcome>;
}

/** Why a rollout cannot be rated; `lasting`: the same code always fails the same way (cached), else it may pass another time. */
interface Unrateable {
  reason: string;
  lasting: boolean;
}

let pool: ReturnType<typeof createSandboxActivities> | undefined;
function defaultRunBatch(input: RunMethodBatchInput): Promise<BatchResult> {
  pool ??= createSandboxActivities();
  return pool.runMethodBatch(input);
}

let generatorText: string | undefined;
function generator(): string {
  generatorText ??= fs.readFileSync(GENERATOR_PATH, 'utf8');
  return generatorText;
}

const errorLine = (r: Extract<CallResult, { ok: false }>) => `${r.error.type}: ${r.error.message}`.slice(0, 400);

/** The method's alternatives, or why there are none to compare with. */
async function alternativesOf(run: (i: RunMethodBatchInput) => Promise<BatchResult>, m: ExecMethodKey): Promise<RunAlternative[] | Unrateable> {
  let result: CallResult | undefined;
  try {
    const b = await run({
      source: m.generator,
      entry: HYPOTHESES_ENTRY,
      calls: [hypothesesCall(m.code, m.entry, m.constants)],
      limits: { resultBytes: 2_000_000 },
    });
    result = b.results[0];
  } catch (err) {
    // A request the sandbox refuses (a source too large for it) is refused every time; anything else (the
    // sandbox unavailable) is the activity's to retry.
    if (err instanceof ApplicationFailure && err.type === FAILURE_TYPES.sandboxBadRequest)
      return { reason: `the sandbox refused the method: ${err.message}`, lasting: true };
    throw err;
  }
  if (result && !result.ok && result.error.type === METHOD_DOES_NOT_IMPORT)
    return { reason: `the method's code fails on import: ${result.error.message}`, lasting: true };
  if (result && !result.ok) {
    return { reason: `the alternatives could not be generated: ${errorLine(result)}`, lasting: !isLimit(result.error.type) };
  }
  let parsed: ReturnType<typeof parseCandidates>;
  try {
    parsed = parseCandidates(result);
  } catch (err) {
    return { reason: `the alternatives could not be generated: ${(err as Error).message}`, lasting: true };
  }
  if (parsed.length === 0) return { reason: 'the method has no alternative to rule out', lasting: true };
  return parsed.map((c) => ({ id: `${c.kind} @ ${c.site}`, source: c.source, outcomes: new Map<string, Outcome>() }));
}

/** The method on some calls with coverage; sandbox faults run again (their coverage merged in). */
async function methodWithCoverage(
  run: (i: RunMethodBatchInput) => Promise<BatchResult>,
  m: ExecMethodKey,
  calls: string[],
): Promise<{ results: CallResult[]; coverage: Coverage | null; problem?: Unrateable }> {
  let coverage: Coverage | null = null;
  let problem: Unrateable | undefined;
  const results = await redoSandboxErrors(async (batch) => {
    const b = await run({ source: m.code, entry: m.entry, calls: batch, coverage: true, allowSourceError: true });
    if (b.sourceError) problem = { reason: `the method's code does not compile: ${b.sourceError.type}: ${b.sourceError.message}`, lasting: true };
    // The coverage analysis is one more sandbox job: its failure may not happen again.
    else if (!b.coverage) problem = { reason: `the method's coverage could not be measured: ${b.coverageError ?? 'no coverage'}`, lasting: false };
    coverage = mergeCoverage(coverage, b.coverage);
    return b.results;
  }, calls);
  return { results, coverage, ...(problem ? { problem } : {}) };
}

/**
 * Each step's rating, for steps given as the argument texts of their calls that ran, in order: from the
 * cache when every step's key is there, else from the sandbox (and then cached). A method that cannot be
 * compared with anything (its code fails on import, no alternative can be generated, its coverage cannot be
 * measured, or every call it made ran into a sandbox limit) has every step unrated, with the reason.
 */
export async function execCriticRatings(deps: ExecCriticDeps, input: { methodId: string; steps: readonly (readonly string[])[] }): Promise<ExecStepRating[]> {
  const d = deps.db();
  const run = deps.runBatch ?? defaultRunBatch;
  const [row] = await d.select().from(methods).where(eq(methods.id, input.methodId)).limit(1);
  if (!row) throw ApplicationFailure.nonRetryable(`method ${input.methodId} is not in the methods table`, FAILURE_TYPES.methodNotFound);
  const probe = row.probeOutputs ?? [];
  const m: ExecMethodKey = {
    code: row.code,
    entry: entryPointOf(row),
    constants: constantReprs(
      probe,
      probe.map((_, i) => i),
      EXEC_CONSTANTS,
    ),
    generator: generator(),
  };
  const keys = input.steps.map((calls, i) => execStepKey(m, input.steps.slice(0, i).flat(), calls));
  if (keys.length === 0) return [];
  const cached = await d.select().from(execCriticSteps).where(inArray(execCriticSteps.stepKey, keys));
  const byKey = new Map(
    cached.map((r) => [r.stepKey, parseJsonb(execStepRatingSchema, r.rating, { table: 'exec_critic_steps', column: 'rating', row: r.stepKey })]),
  );
  if (keys.every((k) => byKey.has(k))) return keys.map((k) => byKey.get(k)!);

  const { ratings, lasting } = await rateInSandbox(run, m, input.steps);
  if (lasting) {
    // Two steps may share a key (e.g. two steps in a row that ran nothing): one row each.
    const rows = new Map(keys.map((stepKey, i) => [stepKey, { stepKey, methodId: input.methodId, version: EXEC_CRITIC_VERSION, rating: ratings[i]! }]));
    await d
      .insert(execCriticSteps)
      .values([...rows.values()])
      .onConflictDoNothing();
  }
  return ratings;
}

async function rateInSandbox(
  run: (i: RunMethodBatchInput) => Promise<BatchResult>,
  m: ExecMethodKey,
  steps: readonly (readonly string[])[],
): Promise<{ ratings: ExecStepRating[]; lasting: boolean }> {
  const beat = currentActivity();
  const unrated = (u: Unrateable) => ({ ratings: unratedSteps(steps.length, u.reason), lasting: u.lasting });
  const alternatives = await alternativesOf(run, m);
  if (!Array.isArray(alternatives)) return unrated(alternatives);
  const method = new Map<string, Outcome>();
  const coverage: (Coverage | null)[] = [];
  for (const calls of steps) {
    const fresh = [...new Set(calls)].filter((c) => !method.has(c));
    if (fresh.length === 0) {
      coverage.push(null);
      continue;
    }
    // Who is still standing before this step: only they are run on its calls (an alternative ruled out
    // earlier stays out whatever it does now).
    const standing = survivors({ method, alternatives }, method.keys());
    const own = await methodWithCoverage(run, m, fresh);
    if (own.problem) return unrated(own.problem);
    for (const [j, c] of fresh.entries()) method.set(c, own.results[j]!);
    coverage.push(own.coverage);
    await Promise.all(
      standing.map(async (a) => {
        const results = await redoSandboxErrors(
          async (batch) => (await run({ source: a.source, entry: m.entry, calls: batch, allowSourceError: true })).results,
          fresh,
        );
        for (const [j, c] of fresh.entries()) a.outcomes.set(c, results[j]!);
      }),
    );
    beat?.heartbeat({ critic: 'exec', steps: coverage.length, of: steps.length });
  }
  const outcomes = [...method.values()];
  if (outcomes.length > 0 && !outcomes.some(isEvidence)) {
    const types = [...new Set(outcomes.map((o) => (o.ok ? '' : o.error.type)))].join(', ');
    return unrated({ reason: `every call of the method ran into a sandbox limit or was not run (${types})`, lasting: false });
  }
  return { ratings: execStepRatings(steps, { method, alternatives, coverage }), lasting: true };
}
