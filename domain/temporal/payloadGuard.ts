// How a worker tells payloads this deployment wrote (encrypted by the payload codec, config/payloadCodec.ts)
// from plain ones someone else wrote (anyone who reaches the Temporal port can start a workflow or complete
// an activity with a plain JSON input). The codec runs outside the workflow sandbox and knows no workflow's
// start time, so it does not decide: it hands each plain (or forged) payload on as a *mark*, and the
// workflow and activity interceptors (workflows/common/payloadGuard.ts, workers/payloadGuard.ts), which
// know when the workflow started or the activity was scheduled, admit it only for histories that predate
// the codec (started before the key's cut-over) and refuse it otherwise. Pure: used on both sides.

/** The payload encoding the codec writes; its data is iv ‖ ciphertext ‖ tag of the original payload. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** The top-level key of a mark (a payload the codec could not authenticate). */
export const GUARD_MARK = '$pauPayloadGuard';

export type GuardMark =
  /** A plain payload (json/plain, or binary/null: `json` absent). Admissible only in pre-codec histories. */
  | { kind: 'unencoded'; cutoverMs: number; json?: string }
  /** A plain payload of an encoding the guard cannot restore, or an encrypted one that failed authentication. */
  | { kind: 'refused'; reason: string };

export function isGuardMark(value: unknown): value is { [GUARD_MARK]: GuardMark } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && GUARD_MARK in value && Object.keys(value).length === 1;
}

export type Admission = { ok: true; value: unknown } | { ok: false; reason: string };

/**
 * One decoded value, as the interceptors see it: a value that was encrypted passes; a mark passes (restored
 * to its original value) only when what it belongs to started before the codec's cut-over.
 * `startedMs`: the workflow's start time, or the activity's (first) scheduling time: set by the server.
 */
export function admit(value: unknown, startedMs: number, what: string): Admission {
  if (!isGuardMark(value)) return { ok: true, value };
  const mark = value[GUARD_MARK];
  if (mark.kind === 'refused') return { ok: false, reason: `${what}: ${mark.reason}` };
  if (startedMs < mark.cutoverMs) return { ok: true, value: mark.json === undefined ? undefined : (JSON.parse(mark.json) as unknown) };
  return {
    ok: false,
    reason: `${what} was not encrypted with this deployment's payload key (a plain payload, started ${new Date(startedMs).toISOString()}, after the codec's cut-over ${new Date(mark.cutoverMs).toISOString()}): refused. Start workflows with the project's client (pau), which encrypts their input.`,
  };
}

/**
 * A workflow started with no argument carries nothing encrypted, so nothing shows who started it: refused
 * whenever it started (every workflow this project starts passes one input object).
 */
export const NO_INPUT_REASON =
  "workflow input: none. A workflow started with no argument carries nothing encrypted with this deployment's payload key, so it is refused; start workflows with the project's client (pau).";
