// The execution critic (`--critic exec`, docs/training.md "The execution critic"): a step's reward computed
// from the method's code, which the agent never sees, instead of a model's opinion. Two things a step can
// reveal, both measured by running code in the sandbox:
// - hypotheses ruled out: the method's alternatives (its mutants, constant functions of its outputs, the
//   identity: activities/calibration/mutants.py) that every earlier call left standing and that this step's
//   calls contradict (the alternative, run on the call's arguments, returns or raises something else);
// - behaviour newly covered: the statements and branch arcs of the method that this step's calls executed
//   and no earlier call had.
// Pure: the evidence (each call's outcome under the method and under each alternative still standing, the
// coverage of each step's calls) is gathered by activities/training/execCritic.ts; the rating of a step is a
// function of that evidence alone, hence of (method code, earlier calls, the step's calls).
import { z } from 'zod';
import { generatorCall } from '../calibration/candidates';
import { canonicalJson, sha256Hex } from '../common/hash';
import { DEFAULT_EQUALITY, outcomesEqual } from '../judge/outcomeEquality';
import { isNotRun, isSandboxErrorType } from '../sandbox/errorTypes';
import { mergeCoverage } from '../sandbox/coverage';
import type { Coverage, Outcome } from '../sandbox/schemas';

/** The critic name that selects the execution critic (`grpo train --critic exec`): not a model. */
export const EXEC_CRITIC = 'exec';

export function isExecCritic(critic: string): boolean {
  return critic === EXEC_CRITIC;
}

/** Bump when the formula, the alternatives or the evidence rules change: cached ratings of another version are not reused. */
export const EXEC_CRITIC_VERSION = 'exec-v1';

/** Mutated sites per mutant kind (the calibration takes 2; more alternatives tell finer probes apart). */
export const EXEC_MUTANTS_PER_KIND = 4;
/** Constant functions: the method's most frequent outputs on its dataset probe inputs. */
export const EXEC_CONSTANTS = 3;

/** The generator's entry and the exception it raises when the method's module does not run (mutants.py). */
export const HYPOTHESES_ENTRY = 'critic_hypotheses';
export const METHOD_DOES_NOT_IMPORT = 'MethodDoesNotImport';

/** The arguments of `critic_hypotheses(source, entry, constant_reprs, max_per_kind)` as Python literals. */
export function hypothesesCall(code: string, entry: string, constants: readonly string[]): string {
  return `${generatorCall(code, entry, constants)}, ${EXEC_MUTANTS_PER_KIND}`;
}

/** The formula's weights: hypotheses ruled out, behaviour newly covered (they sum to 1). */
export const EXEC_WEIGHTS = { ruledOut: 0.7, coverage: 0.3 } as const;

/** One alternative to the method: its id (`kind @ site`) and its outcome on each call it was run on, by argument text. */
export interface ExecAlternative {
  id: string;
  outcomes: ReadonlyMap<string, Outcome>;
}

/** What the sandbox showed, for one rollout. */
export interface ExecEvidence {
  /** The method's outcome on every call the rollout ran, by argument text. */
  method: ReadonlyMap<string, Outcome>;
  /** The alternatives; each was run at least on the calls it had not been contradicted before. */
  alternatives: readonly ExecAlternative[];
  /** Per step, the method's coverage on the step's calls that no earlier step ran (null: none). */
  coverage: readonly (Coverage | null)[];
}

/**
 * Whether the method's outcome says something about it: a value or an exception it raised. A limit (time,
 * memory, output) or a call the sandbox did not run says nothing about the method and contradicts nothing.
 */
export function isEvidence(o: Outcome): boolean {
  return o.ok || !isSandboxErrorType(o.error.type);
}

/**
 * Whether an alternative's outcome on a call contradicts the method's (the equality of code match,
 * domain/judge/outcomeEquality.ts). An alternative the sandbox could not run on it is not contradicted; one
 * that ran past a limit where the method did not is (it does not do what the method did).
 */
export function contradicts(method: Outcome | undefined, alternative: Outcome | undefined): boolean {
  if (!method || !alternative || !isEvidence(method)) return false;
  if (!alternative.ok && isNotRun(alternative.error.type)) return false;
  return !outcomesEqual(method, alternative, DEFAULT_EQUALITY);
}

/** The alternatives consistent with every one of the calls (none of them contradicts it). */
export function survivors<A extends ExecAlternative>(evidence: { method: ExecEvidence['method']; alternatives: readonly A[] }, calls: Iterable<string>): A[] {
  const list = [...new Set(calls)];
  return evidence.alternatives.filter((a) => !list.some((c) => contradicts(evidence.method.get(c), a.outcomes.get(c))));
}

/** A statement or branch-arc count. */
const countsSchema = z.object({ statements: z.number().int().nonnegative(), branches: z.number().int().nonnegative() });

/** One step's rating (stored per step key in exec_critic_steps; its reward goes to steps.critic_reward). */
export const execStepRatingSchema = z.object({
  /** In [0, 1]; null: unrated, `unrated` says why. */
  reward: z.number().min(0).max(1).nullable(),
  unrated: z.string().optional(),
  /** The method's alternatives in all, those every earlier call left standing, and those this step ruled out. */
  alternatives: z.number().int().nonnegative(),
  survivorsBefore: z.number().int().nonnegative(),
  ruledOut: z.number().int().nonnegative(),
  /** The ids (`kind @ site`) of the alternatives ruled out, the first RULED_OUT_IDS of them. */
  ruledOutIds: z.array(z.string()),
  /** Statements and branch arcs this step executed first, and the method's totals. */
  coverageAdded: countsSchema,
  coverageTotal: countsSchema,
});
export type ExecStepRating = z.infer<typeof execStepRatingSchema>;

const RULED_OUT_IDS = 12;

/**
 * The information term: with the method and its surviving alternatives equally likely, the step's
 * information gain log((S + 1) / (S − R + 1)) over what singles the method out of all N + 1,
 * log(N + 1). A rollout's terms sum to log((N + 1) / (S_end + 1)) / log(N + 1) ≤ 1.
 */
export function ruledOutTerm(alternatives: number, survivorsBefore: number, ruledOut: number): number {
  if (alternatives === 0 || ruledOut === 0) return 0;
  return Math.log((survivorsBefore + 1) / (survivorsBefore - ruledOut + 1)) / Math.log(alternatives + 1);
}

/** The coverage term: the statements and branch arcs this step reached first, as a share of the method's (sums to ≤ 1 over a rollout). */
export function coverageTerm(added: z.infer<typeof countsSchema>, total: z.infer<typeof countsSchema>): number {
  const units = total.statements + total.branches;
  return units === 0 ? 0 : (added.statements + added.branches) / units;
}

/** The step's reward: 0.7 x the information term + 0.3 x the coverage term, in [0, 1]; 0 for a step that shows nothing new. */
export function execReward(ruledOut: number, coverage: number): number {
  const r = EXEC_WEIGHTS.ruledOut * ruledOut + EXEC_WEIGHTS.coverage * coverage;
  // Six decimals: the same evidence stores and compares as the same number.
  return Math.min(1, Math.max(0, Math.round(r * 1e6) / 1e6));
}

const NO_COUNTS = { statements: 0, branches: 0 };

/** Every step unrated for one reason (the method could not be compared with anything). */
export function unratedSteps(steps: number, reason: string): ExecStepRating[] {
  return Array.from({ length: steps }, () => ({
    reward: null,
    unrated: reason,
    alternatives: 0,
    survivorsBefore: 0,
    ruledOut: 0,
    ruledOutIds: [],
    coverageAdded: NO_COUNTS,
    coverageTotal: NO_COUNTS,
  }));
}

function counts(c: Coverage | null): z.infer<typeof countsSchema> {
  return c ? { statements: c.lines.hit, branches: c.branches.hit } : NO_COUNTS;
}

/**
 * The rating of every step of a rollout, each step given as the argument texts of its calls that ran (in
 * order; a rejected call shows nothing and is not given). Step i's survivors are the alternatives no call of
 * steps 0..i-1 contradicts; it rules out those of them one of its own calls contradicts.
 */
export function execStepRatings(steps: readonly (readonly string[])[], evidence: ExecEvidence): ExecStepRating[] {
  if (evidence.coverage.length !== steps.length) throw new Error(`${steps.length} steps but ${evidence.coverage.length} coverages`);
  const n = evidence.alternatives.length;
  const seen: string[] = [];
  let covered: Coverage | null = null;
  return steps.map((calls, i) => {
    const before = survivors(evidence, seen);
    const ruled = before.filter((a) => calls.some((c) => contradicts(evidence.method.get(c), a.outcomes.get(c))));
    const after = mergeCoverage(covered, evidence.coverage[i] ?? null);
    const was = counts(covered);
    const now = counts(after);
    const total = after ? { statements: after.lines.total, branches: after.branches.total } : NO_COUNTS;
    const added = { statements: now.statements - was.statements, branches: now.branches - was.branches };
    covered = after;
    seen.push(...calls);
    return {
      reward: execReward(ruledOutTerm(n, before.length, ruled.length), coverageTerm(added, total)),
      alternatives: n,
      survivorsBefore: before.length,
      ruledOut: ruled.length,
      ruledOutIds: ruled.slice(0, RULED_OUT_IDS).map((a) => a.id),
      coverageAdded: added,
      coverageTotal: total,
    };
  });
}

/** What a step's rating depends on besides its calls: the method, the alternatives' recipe and the version. */
export interface ExecMethodKey {
  code: string;
  entry: string;
  constants: readonly string[];
  /** The alternatives' generator (activities/calibration/mutants.py), its text. */
  generator: string;
}

const distinctSorted = (xs: readonly string[]) => [...new Set(xs)].sort();

/**
 * The cache key of one step's rating: the method, the calls of the steps before it and its own calls, each
 * as a set (the rating depends on which calls ran, not in which order or how often).
 */
export function execStepKey(m: ExecMethodKey, before: readonly string[], step: readonly string[]): string {
  return sha256Hex(
    canonicalJson({
      version: EXEC_CRITIC_VERSION,
      perKind: EXEC_MUTANTS_PER_KIND,
      code: sha256Hex(m.code),
      entry: m.entry,
      constants: [...m.constants],
      generator: sha256Hex(m.generator),
      before: distinctSorted(before),
      step: distinctSorted(step),
    }),
  );
}

/** The rating as steps.critic_rationale records it. */
export function execRationale(r: ExecStepRating): string {
  if (r.reward === null) return `${EXEC_CRITIC_VERSION}: unrated: ${r.unrated ?? 'no reason recorded'}`;
  const ruled = r.ruledOut > 0 ? ` (${r.ruledOutIds.join('; ')}${r.ruledOut > r.ruledOutIds.length ? '; ...' : ''})` : '';
  return (
    `${EXEC_CRITIC_VERSION}: reward ${r.reward}: ruled out ${r.ruledOut} of ${r.survivorsBefore} surviving alternatives (${r.alternatives} in all)${ruled}; ` +
    `first covered ${r.coverageAdded.statements} of ${r.coverageTotal.statements} statements and ${r.coverageAdded.branches} of ${r.coverageTotal.branches} branch arcs`
  );
}
