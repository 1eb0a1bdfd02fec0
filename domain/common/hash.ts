// The project's pure hashes and the canonical JSON they are taken over. Stored ids, cache keys, seeds
// and port numbers are derived from these, so their output must never change. Pure: no I/O.

import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/** FNV-1a (32-bit, unsigned) of a string's UTF-16 code units: a stable seed, port or short id from a name. */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** fnv1a as 8 lowercase hex digits (a short, file-name-safe tag). */
export function fnv1aHex(s: string): string {
  return fnv1a(s).toString(16).padStart(8, '0');
}

/**
 * JSON with object keys sorted (by UTF-16 code units) and undefined fields dropped: the same value always
 * gives the same text whatever order its fields were built in (jsonb reorders keys). Request hashes,
 * run-config checks and the canonical form of sandbox values are taken over it.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/**
 * SHA-256 of a string's UTF-8 bytes, as 64 lowercase hex digits. @noble/hashes (pure JavaScript: no Node
 * built-in, no clock, no randomness in this path) rather than node:crypto, so that pure and workflow code (the
 * dataset's content hash, split ranks, check keys) can use it; the output is the standard digest.
 */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}

/** The cache key of a model request: the SHA-256 of its canonical JSON (keys sorted), so the same request
 * always hashes the same whatever order its fields were built in. */
export function requestHash(parts: unknown): string {
  return sha256Hex(canonicalJson(parts));
}
