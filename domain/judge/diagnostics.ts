// Per-episode diagnostics: how the agent explored, whether its final hypothesis contradicts what it had
// already seen (the paper's main failure: 43.3% of failures), why code written from it could not run, and
// where that code and the original disagree. Pure code, no I/O.
import { z } from 'zod';
import { documentSchema } from '../common/jsonDocument';
import { isAgentError, observationText } from '../episode/observation';
import type { ObservedCall } from '../episode/observedCalls';
import type { CallResult, ErrorInfo, Outcome } from '../sandbox/schemas';
import { isLimit, isSandboxFault, SANDBOX_ERROR } from '../sandbox/errorTypes';
import { outcomesEqual, type EqualityOptions } from './outcomeEquality';

export { isAgentError };

/** What diagnostics read of an observed call (every ObservedCall is one). */
export type Observation = Pick<ObservedCall, 'arguments'> & { result: Outcome };

export interface EpisodeDiagnostics {
  /** Calls the agent made (interactive) or examples it was given (in-context). */
  calls: number;
  distinctCalls: number;
  /** Calls whose arguments (whitespace-insensitive) repeat an earlier call's. */
  repeatedCalls: number;
  /** Observations that were exceptions (any type). */
  errors: number;
  /** Of those, the agent's own mistakes: unparsable arguments or a wrong number of arguments. */
  agentErrors: number;
  /** Observed inputs the generated code was checked on, and how many it got wrong; null: not checked. */
  observedChecked: number | null;
  contradictions: number | null;
  /** The generated code disagrees with at least one example the agent had seen. Null: no code to check. */
  contradictsObserved: boolean | null;
  /** Coverage below the threshold (branch coverage when the method has branches, else statements). */
  underExplored: boolean | null;
  underExploredThreshold: number;
  /** The judge's answer could not be parsed, even after one retry. */
  unparsable: boolean;
  /** Code match had no generated code (the writer's answer held none). */
  noCode: boolean;
  /** The generated code did not compile or defines no entry point: code match 0 (absent in older rows). */
  codeFailure?: CodeFailure | null;
  /** The control of the contradiction check (absent in older rows): code from the gold description. */
  goldControl?: GoldControl;
  /** Held-out inputs: given, generated, counted, and of the counted ones those the agent never observed (absent in older rows). */
  heldout?: { given: number; generated: number; counted: number; unobserved?: number };
  /**
   * Code match over the counted held-out inputs the agent never observed (its calls, or its examples in
   * context); null when none is left or the method is excluded from code match (absent in older rows).
   */
  codeMatchUnobserved?: number | null;
}

/**
 * The control of the code-based contradiction check (issue 12 point 4): the coder writes code from the
 * method's gold description and that code is checked against the agent's own observations exactly as the
 * agent's code is. The gold description is right by definition, so every disagreement here is noise of
 * the check itself (coder mistakes, things no description states); a low agreement says the
 * "contradicts observed" share is not to be read as the agent's contradictions.
 */
export interface GoldControl {
  /** Observed calls that returned a value and were checked; null: not checked (reason below). */
  checked: number | null;
  contradictions: number | null;
  /** The gold code agrees with every checked observation; null when nothing was checked. */
  agrees: boolean | null;
  /** Why nothing was checked: no gold description, no code, code failed to run, or no observed value. */
  reason?: 'no-gold-description' | 'no-code' | 'code-failed' | 'no-observed-values';
}

/** The control's verdict from the gold code's outcomes on the observed inputs (null: no code). */
export function goldControl(
  observed: readonly Observation[],
  gold: { hasGold: boolean; code: string | null; results: readonly (Outcome | undefined)[] | null; failed: CodeFailure | null },
  equality: Partial<EqualityOptions> = {},
): GoldControl {
  const none = (reason: NonNullable<GoldControl['reason']>): GoldControl => ({ checked: null, contradictions: null, agrees: null, reason });
  if (!gold.hasGold) return none('no-gold-description');
  if (gold.code === null || gold.results === null) return none('no-code');
  if (gold.failed) return none('code-failed');
  const c = contradictions(observed, gold.results, equality);
  if (c.checked === 0) return none('no-observed-values');
  return { checked: c.checked, contradictions: c.contradictions, agrees: c.contradictions === 0 };
}

export const DEFAULT_UNDER_EXPLORED = 0.75;

export function explorationCounts(
  observed: readonly Observation[],
): Pick<EpisodeDiagnostics, 'calls' | 'distinctCalls' | 'repeatedCalls' | 'errors' | 'agentErrors'> {
  const seen = new Set<string>();
  let repeated = 0;
  let errors = 0;
  let agentErrors = 0;
  for (const c of observed) {
    const key = c.arguments.replace(/\s+/g, '');
    if (seen.has(key)) repeated++;
    seen.add(key);
    if (!c.result.ok) errors++;
    if (isAgentError(c.result)) agentErrors++;
  }
  return { calls: observed.length, distinctCalls: seen.size, repeatedCalls: repeated, errors, agentErrors };
}

/**
 * Compares the generated code's outcomes on the observed inputs with what the agent observed, on the
 * calls that returned a value only: an exception the agent saw (a type misuse, a rejected input) is
 * rarely something a description commits to, so a coder's different exception is not counted as the
 * description contradicting an observation (the judge-model classifier reads those). Agent mistakes and
 * sandbox limits are never evidence. `generated[i]` is the generated code's outcome on `observed[i].arguments`.
 */
export function contradictions(
  observed: readonly Observation[],
  generated: readonly (Outcome | undefined)[],
  equality: Partial<EqualityOptions> = {},
): { checked: number; contradictions: number } {
  let checked = 0;
  let bad = 0;
  observed.forEach((c, i) => {
    const g = generated[i];
    if (!g || !c.result.ok) return;
    checked++;
    if (!observedEqual(c.result, g, equality)) bad++;
  });
  return { checked, contradictions: bad };
}

/** Compares with the observation's typed value, or its repr when an older row stored no value. */
function observedEqual(o: Outcome, g: Outcome, equality: Partial<EqualityOptions>): boolean {
  if (o.ok && o.value === undefined) return g.ok && g.repr === o.repr;
  return outcomesEqual(o, g, equality);
}

/** An observation that says something about the method (not the agent's typo, not a sandbox limit). */
export function isEvidence(r: Outcome): boolean {
  if (r.ok) return true;
  if (isAgentError(r)) return false;
  const type = r.error.type;
  return !(isLimit(type) || isSandboxFault(type));
}

export function underExplored(statement: number | null, branch: number | null, branchTotal: number, threshold = DEFAULT_UNDER_EXPLORED): boolean | null {
  const c = branchTotal > 0 ? branch : statement;
  return c === null || c === undefined ? null : c < threshold;
}

/** judgments.diagnostics as stored; fields added later are optional in the type (older rows lack them). */
export const episodeDiagnosticsSchema = documentSchema<Partial<EpisodeDiagnostics>>({
  calls: z.number().optional(),
  contradictsObserved: z.boolean().nullable().optional(),
  heldout: z.looseObject({ given: z.number(), generated: z.number(), counted: z.number() }).optional(),
});

// Why code written from a description could not be run at all: it does not compile, or it defines no
// function of the method's name. Such code scores code match 0 with this reason recorded (issue 12 point 3);
// before, a compile error failed the judge workflow and the episode vanished from every metric.
export const CODE_FAILURES = ['does-not-compile', 'no-entry-point'] as const;
export type CodeFailureKind = (typeof CODE_FAILURES)[number];

export interface CodeFailure {
  kind: CodeFailureKind;
  /** The sandbox's error, e.g. `SyntaxError: invalid syntax (line 3)`. */
  message: string;
}

/** The failure of the candidate code on its batch, or null when it ran (whatever its outcomes). */
export function codeFailure(sourceError: ErrorInfo | null | undefined, results: readonly CallResult[]): CodeFailure | null {
  if (sourceError) return { kind: 'does-not-compile', message: `${sourceError.type}: ${sourceError.message}` };
  const first = results[0];
  if (first && !first.ok && first.error.type === SANDBOX_ERROR.entryNotFound && results.every((r) => !r.ok && r.error.type === SANDBOX_ERROR.entryNotFound)) {
    return { kind: 'no-entry-point', message: `${first.error.type}: ${first.error.message}` };
  }
  return null;
}

// The held-out inputs on which the code written from the description and the original disagree, as a
// person reads them (input, what the original gave, what the generated code gave), for the episode's
// transcript. Capped: a transcript shows examples, not every input.
export interface HeldoutDisagreement {
  /** The call's arguments (Python literals). */
  input: string;
  /** The original's outcome: the repr, or "ExceptionType: message". */
  expected: string;
  /** The generated code's outcome; `(no code)` when the coder wrote none. */
  got: string;
}

export const MAX_DISAGREEMENTS = 10;

/** `counted` are the indices of `inputs` that count for code match (the others are not compared). */
export function heldoutDisagreements(
  inputs: readonly string[],
  original: readonly CallResult[],
  candidate: readonly CallResult[] | null,
  counted: readonly number[],
  equality: EqualityOptions,
  max = MAX_DISAGREEMENTS,
): HeldoutDisagreement[] {
  const out: HeldoutDisagreement[] = [];
  for (const i of counted) {
    if (out.length >= max) break;
    const o = original[i];
    const c = candidate?.[i];
    if (!o || (c && outcomesEqual(o, c, equality))) continue;
    out.push({ input: inputs[i] ?? '', expected: observationText(o), got: candidate === null ? '(no code)' : c ? observationText(c) : '(no result)' });
  }
  return out;
}
