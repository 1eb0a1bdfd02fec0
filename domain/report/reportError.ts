// A report that cannot be built or read back (no such run, a stored row of a kind this build does not know):
// the producer turns it into a typed non-retryable failure, the CLI into a clear message and exit 1.
export class ReportError extends Error {
  override name = 'ReportError';
}
