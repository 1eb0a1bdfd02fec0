// The error types the sandbox itself produces, as one const object and its type, with the questions
// callers ask of an error type. Every other error type is the method's own exception name (`ValueError`),
// so an exact match is the only safe test: a method may raise its own `TimeoutError` or `RateLimit`.
// The Python side (sandbox/child.py, sandbox/executor.py) writes the same names as string literals;
// test/sandbox/errorTypes.pure.test.ts checks both sides name the same set. Pure: workflow-safe.

export const SANDBOX_ERROR = {
  /** The call ran past its wall or CPU time limit. */
  timeout: 'Timeout',
  /** The call ran out of its memory limit. */
  memoryLimit: 'MemoryLimit',
  /** The call wrote more stdout than its limit. */
  outputLimit: 'OutputLimit',
  /** The call's encoded result is larger (or nested deeper) than its limit. */
  resultLimit: 'ResultLimit',
  /** The call's argument text is not a list of Python literals. */
  badArguments: 'BadArguments',
  /** The source defines no such name. */
  entryNotFound: 'EntryNotFound',
  /** The sandbox failed (a crash, a forbidden syscall that killed the call, a broken executor). */
  sandboxError: 'SandboxError',
} as const;

export type SandboxErrorType = (typeof SANDBOX_ERROR)[keyof typeof SANDBOX_ERROR];

export const SANDBOX_ERROR_TYPES: readonly SandboxErrorType[] = Object.values(SANDBOX_ERROR);

const LIMITS: ReadonlySet<string> = new Set([SANDBOX_ERROR.timeout, SANDBOX_ERROR.memoryLimit, SANDBOX_ERROR.outputLimit, SANDBOX_ERROR.resultLimit]);
const NOT_RUN: ReadonlySet<string> = new Set([SANDBOX_ERROR.badArguments, SANDBOX_ERROR.entryNotFound, SANDBOX_ERROR.sandboxError]);

/** Made by the sandbox, not raised by the method. */
export function isSandboxErrorType(type: string): type is SandboxErrorType {
  return LIMITS.has(type) || NOT_RUN.has(type);
}

/** The call ran out of time. */
export function isTimeout(type: string): boolean {
  return type === SANDBOX_ERROR.timeout;
}

/** The call hit one of its limits (time, memory, stdout, result size): it says nothing certain about the method. */
export function isLimit(type: string): boolean {
  return LIMITS.has(type);
}

/** The sandbox itself failed: worth running the call again. */
export function isSandboxFault(type: string): boolean {
  return type === SANDBOX_ERROR.sandboxError;
}

/** The method was never run as asked: the arguments did not parse, the entry point is missing, or the sandbox failed. */
export function isNotRun(type: string): boolean {
  return NOT_RUN.has(type);
}
