// Split schemes (domain/dataset/split.ts): behaviour clusters never straddle splits; the by-source scheme and
// MBPP's official split; the held-out decisions of domain/dataset/heldout.ts. Pure code.
import { describe, expect, it } from 'vitest';
import { behaviourSummary, clusterItems } from '../../domain/dataset/behaviour';
import { BuildConfig } from '../../domain/dataset/config';
import { schemeText } from '../../activities/dataset/build';
import { mbppOfficialSplit, splitMethods, stratifiedSplit, type SplitItem } from '../../domain/dataset/split';
import { codeMatchExclusion, fingerprintText, selectGeneratedHeldout } from '../../domain/dataset/heldout';
import { parseBySource } from '../../scripts/options/dataset';
import { z } from 'zod';

const pool = (source: string, n: number): SplitItem[] => Array.from({ length: n }, (_, i) => ({ id: `${source}/${i + 1}`, source, sourceId: String(i + 1) }));
const splitOf = (r: ReturnType<typeof splitMethods>) => new Map(r.assignments.map((a) => [a.id, a.split]));

describe('behaviour clusters in the split', () => {
  const items = [...pool('humaneval', 20), ...pool('mbpp', 40), ...pool('codealpaca', 40)];
  const spec = { test: 30, validation: 10 };

  it('keep every cluster in one split, where a behaviour-blind split cuts them', () => {
    const blind = splitOf(stratifiedSplit(items, spec, 's'));
    // Clusters made of one test and one train method of the blind split (same behaviour, other code).
    const test = items.filter((it) => blind.get(it.id) === 'test');
    const train = items.filter((it) => blind.get(it.id) === 'train');
    const members = [0, 1, 2, 3, 4].flatMap((i) => [
      { ...test[i]!, sourceId: test[i]!.sourceId!, entryPoint: `f${i}`, behaviourKey: `k${i}` },
      { ...train[i]!, sourceId: train[i]!.sourceId!, entryPoint: `f${i}`, behaviourKey: `k${i}` },
    ]);
    const clustered = new Set(members.map((m) => m.id));
    const all = [
      ...members,
      ...items.filter((it) => !clustered.has(it.id)).map((it) => ({ ...it, sourceId: it.sourceId!, entryPoint: null, behaviourKey: null })),
    ];
    const withClusters = clusterItems(all);
    const r = splitMethods(withClusters, spec, 's');
    const got = splitOf(r);
    for (let i = 0; i < 5; i++) {
      const [a, b] = members.filter((m) => m.behaviourKey === `k${i}`);
      expect(got.get(a!.id)).toBe(got.get(b!.id));
      expect(blind.get(a!.id)).not.toBe(blind.get(b!.id));
    }
    expect(r.actual).toEqual({ test: 30, validation: 10, train: 60 });
    const summary = behaviourSummary(
      all,
      withClusters,
      r,
      splitMethods(
        withClusters.map((x) => ({ ...x, cluster: null })),
        spec,
        's',
      ),
    );
    expect(summary).toMatchObject({ fingerprinted: 10, clusters: 5, clustered: 10, wouldCross: 5 });
    // Same pool in another order: the same assignment.
    expect(splitOf(splitMethods([...withClusters].reverse(), spec, 's'))).toEqual(got);
  });

  it('a pool of single methods splits exactly as before clustering existed', () => {
    const a = stratifiedSplit(items, spec, 's');
    const b = splitMethods(
      items.map((x) => ({ ...x, cluster: null })),
      spec,
      's',
    );
    expect(b.assignments).toEqual(a.assignments);
  });
});

describe('split by source', () => {
  const items = [...pool('humaneval', 10), ...pool('mbpp', 30), ...pool('cruxeval', 10), ...pool('codealpaca', 40)];

  it('test from humaneval, mbpp, cruxeval; codealpaca trains, with validation drawn from it', () => {
    const r = splitMethods(
      items,
      { scheme: 'by-source', test: 741, validation: 5, bySource: { humaneval: 'test', mbpp: 'test', cruxeval: 'test', codealpaca: 'train' } },
      's',
    );
    const got = splitOf(r);
    expect(items.filter((it) => it.source !== 'codealpaca').every((it) => got.get(it.id) === 'test')).toBe(true);
    expect(
      items
        .filter((it) => it.source === 'codealpaca')
        .map((it) => got.get(it.id))
        .sort(),
    ).toEqual([...Array(35).fill('train'), ...Array(5).fill('validation')].sort());
    expect(r.actual).toEqual({ test: 50, validation: 5, train: 35 });
  });

  it("MBPP's official split by task id; a cluster goes to the most held-out split of its members", () => {
    expect([1, 10, 11, 510, 511, 600, 601, 974].map((n) => mbppOfficialSplit(String(n)))).toEqual([
      'train',
      'train',
      'test',
      'test',
      'validation',
      'validation',
      'train',
      'train',
    ]);
    const mbpp = [5, 20, 530, 700].map((n) => ({ id: `mbpp/${n}`, source: 'mbpp', sourceId: String(n) }));
    const ca = { id: 'codealpaca/2k:1', source: 'codealpaca', sourceId: '2k:1', cluster: 'same' };
    const r = splitOf(
      splitMethods(
        [...mbpp.map((m) => (m.sourceId === '20' ? { ...m, cluster: 'same' } : m)), ca],
        { scheme: 'by-source', test: 0, validation: 100, bySource: { mbpp: 'official', codealpaca: 'train' } },
        's',
      ),
    );
    expect([...r.entries()].sort()).toEqual([
      ['codealpaca/2k:1', 'test'], // behaves like mbpp/20 (test): it follows it rather than leak into train
      ['mbpp/20', 'test'],
      ['mbpp/5', 'train'],
      ['mbpp/530', 'validation'],
      ['mbpp/700', 'train'],
    ]);
  });

  it('the CLI spec parses, names unknown sources, and the scheme is recorded in the config (and the hash)', () => {
    const spec = z.string().transform(parseBySource);
    expect(spec.parse('test=humaneval,mbpp,cruxeval;train=codealpaca')).toEqual({ humaneval: 'test', mbpp: 'test', cruxeval: 'test', codealpaca: 'train' });
    expect(spec.parse('test=humaneval; official=mbpp')).toEqual({ humaneval: 'test', mbpp: 'official' });
    expect(spec.safeParse('test=humaneval,apps').error?.issues[0]?.message).toMatch(/unknown source "apps"/);
    expect(spec.safeParse('official=cruxeval').error?.issues[0]?.message).toMatch(/only mbpp/);
    const cfg = BuildConfig.parse({ split: { scheme: 'by-source', bySource: { humaneval: 'test', mbpp: 'official', codealpaca: 'train' } } });
    expect(schemeText(cfg)).toBe('by-source: test=humaneval; official=mbpp; train=cruxeval,codealpaca'); // unnamed sources train
    expect(schemeText(BuildConfig.parse({}))).toMatch(/^proportional \(test 741, validation 100/);
  });
});

describe('held-out decisions', () => {
  const ok = (repr: string) => ({ ok: true, repr });
  const raises = (excType: string) => ({ ok: false, excType });

  it('a method without two distinct held-out outcomes is excluded from code match, with the reason', () => {
    expect(codeMatchExclusion([ok('0'), ok('0'), ok('0')])).toBe('fewer-than-2-distinct-heldout-outputs');
    expect(codeMatchExclusion([])).toBe('no-heldout-inputs');
    expect(codeMatchExclusion([{ ok: false, limit: 'Timeout' }])).toBe('no-heldout-inputs');
    expect(codeMatchExclusion([ok('0'), raises('ValueError')])).toBeNull(); // an exception is an outcome too
    expect(codeMatchExclusion([ok('0'), ok('1')])).toBeNull();
  });

  it('keeps raising inputs up to a share, drops those a limit stopped, in generation order', () => {
    const inputs = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
    const outcomes = [raises('TypeError'), ok('1'), { ok: false, limit: 'Timeout' }, raises('ValueError'), raises('KeyError'), ok('2'), ok('3')];
    const r = selectGeneratedHeldout(inputs, outcomes, { target: 4, maxRaisingShare: 0.5 });
    expect(r.inputs).toEqual(['a', 'b', 'd', 'f']);
    expect(r.outcomes.map((o) => o.excType ?? o.repr)).toEqual(['TypeError', '1', 'ValueError', '2']);
  });

  it('fingerprints that cannot tell methods apart are not clustered', () => {
    expect(fingerprintText('(int)', [ok('1'), ok('1')])).toBeNull();
    expect(fingerprintText('(int)', [raises('TypeError'), raises('ValueError')])).toBeNull();
    expect(fingerprintText('(int)', [ok('1'), ok('2')])).toBe('(int)\n=1\n=2');
    // Giving back its first argument on most inputs: uninformative (string functions that act on ':' only).
    const args = ["'ab'", "'c d'", "'x:y'", "'q'"];
    expect(fingerprintText('(str)', [ok("'ab'"), ok("'c d'"), ok("'xy'"), ok("'q'")], args)).toBeNull();
    expect(fingerprintText('(str)', [ok("'AB'"), ok("'C D'"), ok("'X:Y'"), ok("'q'")], args)).not.toBeNull();
  });
});
