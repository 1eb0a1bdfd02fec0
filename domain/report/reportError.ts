// A report that cannot be built or read back (a request that fails its schema, no such run, a stored row of a
// kind this build does not know): the producer's callers turn it into a typed non-retryable failure (the
// activity, by `reason`) or a clear message and exit 1 (the CLI).
export type ReportErrorReason = 'badInput' | 'notFound' | 'unreadable';

export class ReportError extends Error {
  override name = 'ReportError';
  constructor(
    message: string,
    readonly reason: ReportErrorReason = 'notFound',
  ) {
    super(message);
  }
}
