// A per-request AbortSignal that follows an activity's cancellation signal until disposed. The openai SDK
// leaves a listener on the signal it is given; one activity making many requests (a judge card's rungs)
// would otherwise pile them onto the activity's one cancellation signal.

/** A signal aborted when `parent` is, until `dispose()` removes its listener from the parent. */
export function linkedAbort(parent: AbortSignal): { signal: AbortSignal; dispose: () => void } {
  const c = new AbortController();
  const onAbort = () => c.abort(parent.reason);
  if (parent.aborted) c.abort(parent.reason);
  else parent.addEventListener('abort', onAbort, { once: true });
  return { signal: c.signal, dispose: () => parent.removeEventListener('abort', onAbort) };
}
