// Which database errors mean "Postgres is not reachable right now" (a restart, crash recovery, a dropped
// connection, too many clients) as opposed to errors of the query itself. The first kind is worth waiting
// out; the second is not.

/** SQLSTATEs of an unreachable or restarting server: class 08 (connection exception), shutdowns, startup, too many clients. */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300']);
const UNAVAILABLE_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
/** What node-postgres says when a connection dies or cannot be had (these errors carry no code). */
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'connection error and is not queryable',
  'timeout exceeded when trying to connect',
  'the database system is',
];

/** True when `err` (or an error in its `cause` chain, e.g. under drizzle's DrizzleQueryError) says Postgres is unavailable. */
export function isDbUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (code.startsWith('08') || UNAVAILABLE_STATES.has(code) || UNAVAILABLE_ERRNOS.has(code))) return true;
    if (e instanceof AggregateError && e.errors.some(isDbUnavailable)) return true;
    if (UNAVAILABLE_MESSAGES.some((m) => e instanceof Error && e.message.includes(m))) return true;
  }
  return false;
}
