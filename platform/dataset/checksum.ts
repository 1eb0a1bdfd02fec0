// File checksums: sha256 (hex), or `git-blob:<sha1>` where only the git blob id of a file is known. The sha256
// of a text is domain/common/hash.ts.
import { createHash } from 'node:crypto';

export function fileDigest(bytes: Buffer, expected: string): string {
  if (expected.startsWith('git-blob:')) {
    const h = createHash('sha1');
    h.update(`blob ${bytes.length}\0`);
    h.update(bytes);
    return `git-blob:${h.digest('hex')}`;
  }
  return createHash('sha256').update(bytes).digest('hex');
}
