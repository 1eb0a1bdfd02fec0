// Did a failed model request leave for its endpoint? A transport error raised before the request was written
// (nothing listens, no such host, no route, a TLS handshake refused) sent nothing: the ledger counts no send
// and no paid work. An error the HTTP client raises before it even connects (a port fetch refuses to use, a
// scheme it does not speak, a URL that does not parse) can never succeed, whatever is retried. Anything else
// (a timeout, a reset mid-request, an answered error) may have been processed. Pure: reads an error's
// `code`, `message` and `cause` chain (Node and undici errors, wrapped by the `openai` package).

export type SendFailure =
  /** The client refuses this endpoint: a retry cannot help (the reason names why). */
  | { kind: 'neverConnects'; reason: string }
  /** The connection failed before the request was written; `refused`: nothing listens at the address. */
  | { kind: 'notSent'; reason: string; refused: boolean };

/** Error codes of a connection that failed before any byte of the request was written. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** What fetch (undici) says when it will not connect at all; ERR_INVALID_URL for a URL that does not parse. */
const NEVER_MESSAGES: Record<string, string> = {
  'bad port': 'the HTTP client refuses this port (one of the ports fetch blocks)',
  'unknown scheme': 'the HTTP client does not speak this URL scheme',
};

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown;
}

/** The errors of a chain: each one's cause and, for an AggregateError (happy eyeballs), each of its errors. */
function chain(err: unknown, depth = 0): ErrorLike[] {
  if (err === null || typeof err !== 'object' || depth > 8) return [];
  const e = err as ErrorLike;
  const inner = Array.isArray(e.errors) ? e.errors.flatMap((x) => chain(x, depth + 1)) : [];
  return [e, ...inner, ...chain(e.cause, depth + 1)];
}

export function sendFailureOf(err: unknown): SendFailure | null {
  const all = chain(err);
  for (const e of all) {
    const message = typeof e.message === 'string' ? e.message : '';
    if (e.code === 'ERR_INVALID_URL' || message === 'Invalid URL') return { kind: 'neverConnects', reason: 'the URL does not parse' };
    const never = NEVER_MESSAGES[message];
    if (never) return { kind: 'neverConnects', reason: never };
  }
  for (const e of all) {
    if (typeof e.code === 'string' && NOT_SENT_CODES.has(e.code)) {
      const message = typeof e.message === 'string' && e.message !== '' ? e.message : e.code;
      return { kind: 'notSent', reason: message, refused: e.code === 'ECONNREFUSED' };
    }
  }
  return null;
}

/** Whether a URL's host is this machine (a refused port there will not start answering by itself). */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return false;
  }
  return host === 'localhost' || host === '[::1]' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
