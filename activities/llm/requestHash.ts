// The cache key of a model request: a SHA-256 of its canonical JSON (keys sorted), so the same request
// always hashes the same whatever order its fields were built in.
import { canonicalJson, sha256Hex } from '../../domain/common/hash';

export function requestHash(parts: unknown): string {
  return sha256Hex(canonicalJson(parts));
}
