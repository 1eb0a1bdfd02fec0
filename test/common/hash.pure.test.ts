// The one FNV-1a and the one canonical JSON. Ids, seeds, ports and cache keys are derived from them, so
// these pin their output: the published FNV-1a test vectors and fixed canonical texts.
import { describe, expect, it } from 'vitest';
import { canonicalJson, fnv1a, fnv1aHex } from '../../domain/common/hash';
import { transcriptFileName } from '../../domain/report/transcriptLinks';

describe('fnv1a', () => {
  it('gives the published 32-bit FNV-1a vectors', () => {
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(fnv1a('a')).toBe(0xe40c292c);
    expect(fnv1a('foobar')).toBe(0xbf9cf968);
    expect(fnv1aHex('foobar')).toBe('bf9cf968');
    expect(fnv1aHex('')).toBe('811c9dc5');
  });

  it('is unsigned and hashes UTF-16 code units', () => {
    for (const s of ['x', 'pau-v1/HumanEval/0', 'é', '😀']) expect(fnv1a(s)).toBeGreaterThanOrEqual(0);
    // One code unit per step: a non-BMP character hashes as its two surrogates.
    expect(fnv1a('😀')).toBe(fnv1a('\ud83d\ude00'));
  });

  it('names transcript pages as before (the links in stored reports depend on it)', () => {
    expect(transcriptFileName('run', 'run/m/a')).toBe(`m_a-${fnv1aHex('run/m/a')}.html`);
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every depth, drops undefined fields and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[3,{"y":2,"z":1}]},"b":1}');
  });

  it('writes scalars as JSON does, and undefined alone as null', () => {
    expect(canonicalJson('a"b')).toBe('"a\\"b"');
    expect(canonicalJson(null)).toBe('null');
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalJson([1.5, true])).toBe('[1.5,true]');
  });

  it('gives the same text whatever order the fields were built in', () => {
    expect(canonicalJson({ x: 1, y: [2] })).toBe(canonicalJson({ y: [2], x: 1 }));
  });
});
