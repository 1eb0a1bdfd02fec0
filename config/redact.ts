// Keeping credentials out of what the project prints, stores and sends to Temporal. Pure string code (no
// I/O, no Node built-ins) so workflow-safe code may use it too.

export const REDACTED = '[REDACTED]';

/**
 * A connection URL (or any text holding one) with its password shown as `***`: `postgres://pau:***@h/db`.
 * Also masks `password=` / `sslpassword=` query parameters. The one helper for printing a DATABASE_URL.
 */
export function maskUrl(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*):[^\s/]*@/gi, '$1:***@').replace(/([?&](?:ssl)?password=)[^&\s]*/gi, '$1***');
}

// Header-like fields that carry a credential: `Authorization: Bearer x`, `"x-api-key":"x"`, `api_key=x`.
const CREDENTIAL_FIELD =
  /\b((?:proxy-)?authorization|x-api-key|api-key|x-goog-api-key|apikey|api_key|access_token|[A-Z0-9_]*API_KEY)(["']?\s*[:=]\s*["']?)(?:(bearer|basic|token)\s+(?!\[REDACTED\])[^\s"',;&}\]]+|(?!\[REDACTED\]|(?:bearer|basic|token)\s)[^\s"',;&}\]]+)/gi;
// Formats of well-known provider keys, wherever they appear.
const KEY_FORMATS = [
  /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/g,
  /\bsk-(?:proj-|ant-[a-z0-9]+-|or-v1-)?[A-Za-z0-9_-]{16,}/g,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  /\b(?:gsk|hf|xai|r8|pplx|fw|nvapi)[_-][A-Za-z0-9_-]{20,}/g,
  /([?&]key=)[^&\s"']+/g,
];

/**
 * Text from a provider (an error message, a body it echoed) made safe to store, log or put in a
 * Temporal payload: every value in `known` (the API keys in use) replaced, credential-bearing fields and
 * well-known key formats replaced, and URL passwords masked.
 */
export function redact(text: string, known: readonly (string | undefined)[] = []): string {
  let out = redactKnown(text, known);
  out = out.replace(CREDENTIAL_FIELD, (_m, field: string, sep: string, scheme: string | undefined) => `${field}${sep}${scheme ? `${scheme} ` : ''}${REDACTED}`);
  for (const re of KEY_FORMATS) {
    out = out.replace(re, (m: string, prefix?: string) => {
      if (typeof prefix === 'string' && prefix.endsWith('key=')) return `${prefix}${REDACTED}`;
      return m.startsWith('Bearer') ? `Bearer ${REDACTED}` : REDACTED;
    });
  }
  return maskUrl(out);
}

/** Only the exact values in `known` replaced: safe on model output, where patterns could mangle content. */
export function redactKnown(text: string, known: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of known) {
    if (secret && secret.length >= 8) out = out.split(secret).join(REDACTED);
  }
  return out;
}
