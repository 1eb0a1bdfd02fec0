// The calls an agent observed, read from its steps: executed calls (interactive) and the examples it was
// shown (in-context), in order, each with what the agent saw and the sandbox's full result. The one reader
// of observations: transcripts, the judge and reports use it.
import type { CallResult } from '../sandbox/schemas';
import type { StepCall, StepObservation } from './stepRecord';

export interface ObservedCall {
  idx: number;
  /** `call` (the agent chose it) or `example` (shown in-context). */
  source: 'call' | 'example';
  /** The argument text as the agent wrote it (or the in-context example's inputs). */
  arguments: string;
  ok: boolean;
  /** What the agent saw: the repr, or "ExceptionType: message". */
  text: string;
  category: string;
  /** The sandbox's full result (value encoding, stdout, time); rows stored before typed values lack `value`. */
  result: CallResult;
}

/** A step as stored (the columns this reader needs). */
export interface StepLike {
  idx: number;
  kind: string;
  call: StepCall | null;
  observation: StepObservation | null;
}

export function observedCalls(rows: readonly StepLike[]): ObservedCall[] {
  return rows.flatMap((s): ObservedCall[] => {
    if (s.kind !== 'call' && s.kind !== 'example') return [];
    const call = s.call ?? {};
    const obs = s.observation ?? {};
    if (typeof call.arguments !== 'string' || !obs.result || obs.executed === false) return [];
    return [
      { idx: s.idx, source: s.kind, arguments: call.arguments, ok: obs.result.ok, text: obs.text ?? '', category: obs.category ?? '', result: obs.result },
    ];
  });
}
