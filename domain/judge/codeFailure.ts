// Why code written from a description could not be run at all: it does not compile, or it defines no
// function of the method's name. Such code scores code match 0 with this reason recorded (issue 12 point 3);
// before, a compile error failed the judge workflow and the episode vanished from every metric.
import type { CallResult, ErrorInfo } from '../sandbox/schemas';
import { SANDBOX_ERROR } from '../sandbox/errorTypes';

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
