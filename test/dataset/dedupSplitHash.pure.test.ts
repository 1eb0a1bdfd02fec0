import { describe, expect, it } from 'vitest';
import { BuildConfig } from '../../domain/dataset/config';
import { dedup } from '../../domain/dataset/dedup';
import { datasetContentHash } from '../../domain/dataset/contentHash';
import { splitInputs } from '../../domain/dataset/method';
import { stratifiedSplit } from '../../domain/dataset/split';

const m = (id: string, source: string, codeHash: string, nearHash: string) => ({ id, source, sourceId: id.split('/')[1]!, codeHash, nearHash });

describe('dedup', () => {
  it('keeps the first in canonical order; later exact and near copies are removed across sources', () => {
    const r = dedup([
      m('cruxeval/sample_3', 'cruxeval', 'a', 'n1'),
      m('mbpp/10', 'mbpp', 'a', 'n1'),
      m('mbpp/2', 'mbpp', 'b', 'n1'),
      m('humaneval/H/1', 'humaneval', 'c', 'n2'),
    ]);
    expect(r.kept.map((x) => x.id)).toEqual(['humaneval/H/1', 'mbpp/2']);
    expect(r.duplicates).toEqual([
      { id: 'mbpp/10', of: 'mbpp/2', kind: 'duplicate-near' },
      { id: 'cruxeval/sample_3', of: 'mbpp/2', kind: 'duplicate-near' },
    ]);
    const unique = dedup([m('mbpp/1', 'mbpp', 'a', 'x'), m('mbpp/2', 'mbpp', 'b', 'y')]);
    expect(unique.duplicates).toEqual([]);
  });
});

describe('split', () => {
  const pool = [
    ...Array.from({ length: 60 }, (_, i) => ({ id: `mbpp/${i}`, source: 'mbpp' })),
    ...Array.from({ length: 30 }, (_, i) => ({ id: `cruxeval/${i}`, source: 'cruxeval' })),
    ...Array.from({ length: 10 }, (_, i) => ({ id: `humaneval/${i}`, source: 'humaneval' })),
  ];
  it('is deterministic, seeded and stratified by source', () => {
    const a = stratifiedSplit(pool, { test: 20, validation: 10 }, 's');
    const b = stratifiedSplit([...pool].reverse(), { test: 20, validation: 10 }, 's');
    expect(a.actual).toEqual({ test: 20, validation: 10, train: 70 });
    const key = (r: typeof a) => r.assignments.map((x) => `${x.id}:${x.split}:${x.position}`).sort();
    expect(key(b)).toEqual(key(a));
    const testBySource = (r: typeof a) =>
      ['mbpp', 'cruxeval', 'humaneval'].map((s) => r.assignments.filter((x) => x.split === 'test' && x.id.startsWith(s)).length);
    expect(testBySource(a)).toEqual([12, 6, 2]);
    expect(key(stratifiedSplit(pool, { test: 20, validation: 10 }, 'other'))).not.toEqual(key(a));
    expect(a.shortfall).toBeUndefined();
  });
  it('reports a pool smaller than requested', () => {
    const r = stratifiedSplit(pool, { test: 741, validation: 100 }, 's');
    expect(r.actual).toEqual({ test: 100, validation: 0, train: 0 });
    expect(r.shortfall).toMatch(/pool of 100 .* test 100 of 741/);
  });
});

describe('probe / held-out inputs', () => {
  it('are disjoint, deterministic, and keep at least one probe', () => {
    expect(splitInputs('a', ['1'], 0.5)).toEqual({ probe: ['1'], heldout: [] });
    const s = splitInputs('a', ['1', '2', '3', '4', '5', '6', '7'], 0.5);
    expect(s.heldout).toHaveLength(3);
    expect(s.probe).toHaveLength(4);
    expect(s.probe.filter((x) => s.heldout.includes(x))).toEqual([]);
    expect(splitInputs('a', ['1', '2', '3', '4', '5', '6', '7'], 0.5)).toEqual(s);
  });
});

describe('content hash', () => {
  it('same inputs give the same hash; any member change or config change gives another', () => {
    const cfg = BuildConfig.parse({});
    const members = [
      {
        id: 'x',
        split: 'test',
        codeHash: 'c',
        signature: 'def f(a):',
        entryPoint: 'f',
        goldDescription: null,
        probeInputs: ['1'],
        heldoutInputs: [],
        heldoutGenerated: ['2', '3'],
        codeMatchExclusion: null,
      },
    ];
    const h = datasetContentHash(cfg, [{ path: 'p', sha256: 's' }], members);
    expect(datasetContentHash(BuildConfig.parse({ name: 'other-name', batchSize: 7 }), [{ path: 'p', sha256: 's' }], members)).toBe(h);
    expect(datasetContentHash(cfg, [{ path: 'p', sha256: 's' }], [{ ...members[0]!, split: 'train' }])).not.toBe(h);
    expect(datasetContentHash(BuildConfig.parse({ seed: 'x' }), [{ path: 'p', sha256: 's' }], members)).not.toBe(h);
    expect(datasetContentHash(cfg, [{ path: 'p', sha256: 's' }], [{ ...members[0]!, heldoutGenerated: ['2'] }])).not.toBe(h);
    expect(datasetContentHash(cfg, [{ path: 'p', sha256: 's' }], [{ ...members[0]!, codeMatchExclusion: 'fewer-than-2-distinct-heldout-outputs' }])).not.toBe(
      h,
    );
    expect(datasetContentHash(BuildConfig.parse({ split: { scheme: 'by-source' } }), [{ path: 'p', sha256: 's' }], members)).not.toBe(h);
  });
});
