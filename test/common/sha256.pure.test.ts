// The pure SHA-256 (sha256Hex in domain/common/hash.ts, @noble/hashes) gives node:crypto's digest, byte for byte:
// stored dataset hashes, split ranks and check keys are taken over it (the shipped pau-v1 file's manifest hashes
// are checked on read: test/dataset/datasetFile.pure.test.ts).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../domain/common/hash';

const node = (s: string) => createHash('sha256').update(s).digest('hex');

describe('sha256Hex', () => {
  it('matches the FIPS 180-4 test vectors', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe('248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1');
    expect(sha256Hex('a'.repeat(1_000_000))).toBe('cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0');
  });

  it('hashes a lone surrogate as U+FFFD, as node:crypto does', () => {
    expect(sha256Hex('a\ud800b')).toBe(sha256Hex('a\ufffdb'));
    expect(sha256Hex('a\ud800b')).toBe(node('a\ud800b'));
  });

  it('matches node:crypto at every length around the block and padding edges, ASCII and multi-byte UTF-8', () => {
    for (let n = 0; n <= 200; n++) {
      const ascii = 'x'.repeat(n);
      expect(sha256Hex(ascii), `ascii ${n}`).toBe(node(ascii));
      const mixed = 'é€😀a'.repeat(n).slice(0, n);
      expect(sha256Hex(mixed), `utf-8 ${n}`).toBe(node(mixed));
    }
  });

  it('matches node:crypto on a large text (a dataset hash body is megabytes)', () => {
    const big = JSON.stringify(Array.from({ length: 20_000 }, (_, i) => ({ id: `m${i}`, code: `def f${i}(x):\n    return x * ${i}\n` })));
    expect(sha256Hex(big)).toBe(node(big));
  });
});
