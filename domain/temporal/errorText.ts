// The readable text of a failure, for logs, stored error columns and the CLI. Temporal wraps what an
// activity or child threw (ActivityFailure "Activity task failed", ChildWorkflowFailure); the wrappers are
// skipped and the causes joined: "MethodNotFound: method x is not in the methods table <- ...".
import { ActivityFailure, ApplicationFailure, ChildWorkflowFailure } from '@temporalio/common';

export function errorText(err: unknown, maxParts = 4): string {
  const parts: string[] = [];
  let e: unknown = err;
  while (e instanceof Error && parts.length < maxParts) {
    const wrapper = (e instanceof ActivityFailure || e instanceof ChildWorkflowFailure) && e.cause instanceof Error;
    if (!wrapper) parts.push(e instanceof ApplicationFailure && e.type ? `${e.type}: ${e.message}` : e.message);
    e = e.cause;
  }
  return parts.join(' <- ') || String(err);
}
