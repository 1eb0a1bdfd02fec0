// The cache key of a model request: a SHA-256 of its canonical JSON (keys sorted), so the same request
// always hashes the same whatever order its fields were built in.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../domain/common/hash';

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function requestHash(parts: unknown): string {
  return sha256(canonicalJson(parts));
}
