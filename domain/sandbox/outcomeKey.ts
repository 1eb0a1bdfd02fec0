// A call's outcome as one comparable string (determinism checks, counting distinct outcomes).
import { canonical, decodeValue } from '../python/codec';
import type { CallResult } from './schemas';

/** The value's canonical form, or the error's type (with its message and the stdout when asked). */
export function outcomeKey(r: CallResult, opts: { withMessage?: boolean; withStdout?: boolean } = {}): string {
  const out = opts.withStdout ? `|stdout:${r.stdout}` : '';
  if (r.ok) return `ok:${canonical(decodeValue(r.value))}${out}`;
  return `err:${r.error.type}${opts.withMessage ? `:${r.error.message}` : ''}${out}`;
}
