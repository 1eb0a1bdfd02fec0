// A sandbox result as the agent sees it (repr, or "ExceptionType: message") and as it is stored.
import type { CallResult, Outcome } from '../sandbox/schemas';
import { isLimit, isSandboxFault, isTimeout, SANDBOX_ERROR } from '../sandbox/errorTypes';

export const MAX_OBSERVATION_CHARS = 2000;

export function observationText(r: CallResult): string {
  const text = r.ok ? r.repr : `${r.error.type}: ${r.error.message}`;
  return text.length > MAX_OBSERVATION_CHARS ? `${text.slice(0, MAX_OBSERVATION_CHARS)}... [truncated, ${text.length} chars]` : text;
}

/** A TypeError that says the call had the wrong number or names of arguments: the agent's mistake. */
const WRONG_ARITY = /(positional argument|required (keyword|positional)|unexpected keyword argument|takes no arguments|missing \d+ required)/;

export function isWrongArity(type: string, message: string): boolean {
  return type === 'TypeError' && WRONG_ARITY.test(message);
}

/** The agent's own mistake: arguments that do not parse, or a wrong number of arguments. */
export function isAgentError(r: Outcome): boolean {
  if (r.ok) return false;
  return r.error.type === SANDBOX_ERROR.badArguments || isWrongArity(r.error.type, r.error.message ?? '');
}

/** A finer label for analysis: wrong arity and bad arguments are the agent's mistakes, not the method's. */
export function observationCategory(r: CallResult): 'value' | 'exception' | 'wrong_arity' | 'bad_arguments' | 'timeout' | 'limit' | 'sandbox_error' {
  if (r.ok) return 'value';
  const { type, message } = r.error;
  if (type === SANDBOX_ERROR.badArguments) return 'bad_arguments';
  if (isTimeout(type)) return 'timeout';
  if (isLimit(type)) return 'limit';
  if (isSandboxFault(type)) return 'sandbox_error';
  if (isWrongArity(type, message)) return 'wrong_arity';
  return 'exception';
}

/**
 * The stored observation of an executed call. `shown`: the text as the agent reads it, when that is not the
 * sandbox's (the anonymised name setting, domain/episode/names.ts); the result stays as the sandbox gave it.
 */
export function storedObservation(r: CallResult, shown?: (text: string, ok: boolean) => string) {
  const text = observationText(r);
  return { text: shown ? shown(text, r.ok) : text, category: observationCategory(r), executed: true, result: r };
}
