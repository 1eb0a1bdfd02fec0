// A sandbox result as the agent sees it (repr, or "ExceptionType: message") and as it is stored.
import type { SandboxCallResult } from './types';

export const MAX_OBSERVATION_CHARS = 2000;

export function observationText(r: SandboxCallResult): string {
  const text = r.ok ? r.repr : `${r.error.type}: ${r.error.message}`;
  return text.length > MAX_OBSERVATION_CHARS ? `${text.slice(0, MAX_OBSERVATION_CHARS)}... [truncated, ${text.length} chars]` : text;
}

/** A finer label for analysis: wrong arity and bad arguments are the agent's mistakes, not the method's. */
export function observationCategory(r: SandboxCallResult): 'value' | 'exception' | 'wrong_arity' | 'bad_arguments' | 'timeout' | 'limit' | 'sandbox_error' {
  if (r.ok) return 'value';
  const { type, message } = r.error;
  if (type === 'BadArguments') return 'bad_arguments';
  if (/timeout/i.test(type)) return 'timeout';
  if (/Limit$/.test(type)) return 'limit';
  if (type === 'SandboxError') return 'sandbox_error';
  if (type === 'TypeError' && /(positional argument|required (keyword|positional)|unexpected keyword argument|takes no arguments|missing \d+ required)/.test(message)) return 'wrong_arity';
  return 'exception';
}

/** The stored observation of an executed call. */
export function storedObservation(r: SandboxCallResult) {
  return { text: observationText(r), category: observationCategory(r), executed: true, result: r };
}
