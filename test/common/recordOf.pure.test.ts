// recordOf (domain/common/recordOf.ts): one entry per key of the list, in its order, each from its key and index.
import { describe, expect, it } from 'vitest';
import { recordOf } from '../../domain/common/recordOf';

describe('recordOf', () => {
  it('makes one entry per key, in the list order, from the key and its index', () => {
    const r = recordOf(['judge', 'code_match', 'calls'] as const, (k, i) => `${i}:${k}`);
    expect(r).toEqual({ judge: '0:judge', code_match: '1:code_match', calls: '2:calls' });
    expect(Object.keys(r)).toEqual(['judge', 'code_match', 'calls']);
    expect(recordOf([], () => 1)).toEqual({});
  });
});
