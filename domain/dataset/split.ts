// Deterministic, seeded splits. Two schemes (BuildConfig.split.scheme):
// - proportional (default): each source gets a share of the test (and validation) split proportional to its
//   share of the pool (largest remainder, ties by source order); inside a source, units are ordered by
//   sha256(seed + id) and the first go to test, the next to validation, the rest to train. When the pool is
//   smaller than requested, test is filled first and the shortfall is reported.
// - by-source: each source goes to the split `bySource` names (`official`: MBPP's own task-id ranges);
//   validation, when no source gives one, is `validation` units drawn from the training sources.
// A unit is a behaviour cluster (methods with the same outputs on shared inputs, activities/dataset/build.ts) or a
// single method: a unit never straddles two splits, so near-duplicates by behaviour cannot leak from train
// into test.
import { sha256Hex } from '../common/hash';
import { DEFAULT_BY_SOURCE, type SourceSplit } from './config';
import { canonicalOrder } from './dedup';
import { SOURCE_NAMES } from './sources';

export type Split = 'train' | 'validation' | 'test';

export interface SplitResult {
  assignments: { id: string; split: Split; position: number }[];
  requested: { test: number; validation: number };
  actual: Record<Split, number>;
  /** Present when the pool could not give the requested sizes. */
  shortfall?: string;
}

export interface SplitItem {
  id: string;
  source: string;
  sourceId?: string;
  /** Methods with the same cluster id go to the same split (unset: a cluster of one). */
  cluster?: string | null;
}

export interface SplitSpec {
  scheme?: 'proportional' | 'by-source';
  test: number;
  validation: number;
  bySource?: Partial<Record<string, SourceSplit>>;
}

interface Unit {
  rep: string;
  source: string;
  members: SplitItem[];
  h: string;
}

function allocate(total: number, sizes: [string, number][]): Map<string, number> {
  const n = sizes.reduce((s, [, v]) => s + v, 0);
  const out = new Map<string, number>();
  if (n === 0 || total === 0) return new Map(sizes.map(([k]) => [k, 0]));
  const exact = sizes.map(([k, v]) => ({ k, v, q: (total * v) / n }));
  let used = 0;
  for (const e of exact) {
    const f = Math.min(Math.floor(e.q), e.v);
    out.set(e.k, f);
    used += f;
  }
  const order = [...exact].sort((a, b) => b.q - Math.floor(b.q) - (a.q - Math.floor(a.q)));
  for (let guard = 0; used < total && guard < 10; guard++) {
    for (const e of order) {
      if (used >= total) break;
      const cur = out.get(e.k) ?? 0;
      if (cur < e.v) {
        out.set(e.k, cur + 1);
        used++;
      }
    }
  }
  return out;
}

/** Units (clusters or single methods), each represented by its first member in the canonical order. */
function unitsOf(items: SplitItem[], seed: string): Unit[] {
  const groups = new Map<string, SplitItem[]>();
  for (const it of items) {
    const key = it.cluster ? `c:${it.cluster}` : `m:${it.id}`;
    groups.set(key, [...(groups.get(key) ?? []), it]);
  }
  return [...groups.values()].map((members) => {
    const rep = canonicalOrder(members.map((m) => ({ ...m, sourceId: m.sourceId ?? m.id })))[0]!;
    return { rep: rep.id, source: rep.source, members, h: sha256Hex(`${seed}\n${rep.id}`) };
  });
}

function bySourceOrder(units: Unit[]): Map<string, Unit[]> {
  const bySource = new Map<string, Unit[]>();
  for (const s of SOURCE_NAMES) bySource.set(s, []);
  for (const u of units) bySource.set(u.source, [...(bySource.get(u.source) ?? []), u]);
  for (const list of bySource.values()) list.sort((a, b) => (a.h < b.h ? -1 : a.h > b.h ? 1 : 0));
  return bySource;
}

/** Positions: a stable order inside each split (by the seeded hash of the id), for paging and sampling. */
function finish(items: SplitItem[], splitOf: Map<string, Split>, seed: string, requested: { test: number; validation: number }): SplitResult {
  const hashOf = new Map(items.map((it) => [it.id, sha256Hex(`${seed}\n${it.id}`)]));
  const assignments: SplitResult['assignments'] = items.map((it) => ({ id: it.id, split: splitOf.get(it.id) ?? 'train', position: 0 }));
  const actual: Record<Split, number> = { test: 0, validation: 0, train: 0 };
  for (const split of ['test', 'validation', 'train'] as const) {
    const inSplit = assignments.filter((a) => a.split === split).sort((a, b) => (hashOf.get(a.id)! < hashOf.get(b.id)! ? -1 : 1));
    inSplit.forEach((a, i) => {
      a.position = i;
    });
    actual[split] = inSplit.length;
  }
  return { assignments, requested: { ...requested }, actual };
}

function proportional(items: SplitItem[], sizes: { test: number; validation: number }, seed: string): SplitResult {
  const bySource = bySourceOrder(unitsOf(items, seed));
  const n = items.length;
  const testN = Math.min(sizes.test, n);
  const valN = Math.min(sizes.validation, n - testN);
  const counts = [...bySource.entries()].map(([k, v]) => [k, v.reduce((s, u) => s + u.members.length, 0)] as [string, number]);
  const testQ = allocate(testN, counts);
  const valQ = allocate(
    valN,
    counts.map(([k, v]) => [k, v - (testQ.get(k) ?? 0)]),
  );
  const splitOf = new Map<string, Split>();
  // Units in hash order fill test, then validation; a cluster that does not fit its source's remaining
  // quota is skipped (the next units fill it), so singleton-only pools split exactly as before clustering.
  for (const [source, list] of bySource) {
    const left = { test: testQ.get(source) ?? 0, validation: valQ.get(source) ?? 0 };
    for (const which of ['test', 'validation'] as const) {
      for (const u of list) {
        if (left[which] <= 0) break;
        if (splitOf.has(u.rep) || u.members.length > left[which]) continue;
        for (const m of u.members) splitOf.set(m.id, which);
        splitOf.set(u.rep, which);
        left[which] -= u.members.length;
      }
    }
  }
  const result = finish(items, splitOf, seed, sizes);
  if (testN < sizes.test || valN < sizes.validation) {
    result.shortfall = `pool of ${n} accepted methods: test ${testN} of ${sizes.test} requested, validation ${valN} of ${sizes.validation}, train ${n - testN - valN}`;
  } else if (result.actual.test < testN || result.actual.validation < valN) {
    result.shortfall = `behaviour clusters left test ${result.actual.test} of ${testN}, validation ${result.actual.validation} of ${valN}`;
  } else if (n - testN - valN === 0 && n > 0) {
    result.shortfall = `pool of ${n} accepted methods leaves no training split`;
  }
  return result;
}

/** MBPP's official split by task id: 1-10 few-shot prompts (train), 11-510 test, 511-600 validation, 601-974 train. */
export function mbppOfficialSplit(sourceId: string): Split {
  const n = Number(sourceId);
  if (!Number.isInteger(n)) return 'train';
  return n >= 11 && n <= 510 ? 'test' : n >= 511 && n <= 600 ? 'validation' : 'train';
}

const STRICTNESS: Record<Split, number> = { test: 2, validation: 1, train: 0 };

function bySourceSplit(items: SplitItem[], spec: SplitSpec, seed: string): SplitResult {
  // A source the rule does not name trains.
  const rule = (spec.bySource ?? DEFAULT_BY_SOURCE) as Record<string, SourceSplit | undefined>;
  const ruleOf = (it: SplitItem): Split => {
    const r = rule[it.source] ?? 'train';
    return r === 'official' ? (it.source === 'mbpp' ? mbppOfficialSplit(it.sourceId ?? it.id.split('/').slice(1).join('/')) : 'train') : r;
  };
  const units = unitsOf(items, seed).sort((a, b) => (a.h < b.h ? -1 : a.h > b.h ? 1 : 0));
  const splitOf = new Map<string, Split>();
  // A cluster goes to the most held-out split any member's source rule names (test, then validation).
  const unitSplit = new Map(units.map((u) => [u, u.members.map(ruleOf).reduce((a, b) => (STRICTNESS[b] > STRICTNESS[a] ? b : a), 'train' as Split)]));
  const givesValidation = items.some((it) => ruleOf(it) === 'validation');
  let valLeft = givesValidation ? 0 : spec.validation;
  for (const u of units) {
    let s = unitSplit.get(u)!;
    if (s === 'train' && valLeft > 0 && u.members.length <= valLeft) {
      s = 'validation';
      valLeft -= u.members.length;
    }
    for (const m of u.members) splitOf.set(m.id, s);
  }
  const result = finish(items, splitOf, seed, { test: 0, validation: givesValidation ? 0 : spec.validation });
  result.requested = { test: result.actual.test, validation: givesValidation ? result.actual.validation : spec.validation };
  if (valLeft > 0) result.shortfall = `the training sources gave validation ${result.actual.validation} of ${spec.validation} requested`;
  return result;
}

/** The split of a pool under a scheme; the same pool, spec and seed give the same assignment in any order. */
export function splitMethods(items: SplitItem[], spec: SplitSpec, seed: string): SplitResult {
  return spec.scheme === 'by-source' ? bySourceSplit(items, spec, seed) : proportional(items, spec, seed);
}

/** The proportional split of single methods (no clusters): the scheme before behaviour clustering. */
export function stratifiedSplit(items: { id: string; source: string }[], sizes: { test: number; validation: number }, seed: string): SplitResult {
  return proportional(items, sizes, seed);
}

/**
 * The candidates likeliest to open the test split, in the order they would hold there: a split's
 * positions follow sha256(seed + id), and each source fills its test share from its units in that
 * same order, so the accepted methods with the smallest hashes are test positions 0, 1, ... unless a
 * duplicate, a behaviour cluster or a source's quota moves them (known only once every method is
 * checked). Under `by-source`, only candidates whose source rule names test. A build checks these first
 * when a caller wants test methods before it ends (`npm start`'s benchmark), and that caller compares
 * them with the finished split.
 */
export function likelyTestHead(items: SplitItem[], spec: Pick<SplitSpec, 'scheme' | 'bySource'>, seed: string, n: number): string[] {
  const rule = (spec.bySource ?? DEFAULT_BY_SOURCE) as Record<string, SourceSplit | undefined>;
  const inTest = (it: SplitItem): boolean => {
    if (spec.scheme !== 'by-source') return true;
    const r = rule[it.source] ?? 'train';
    return r === 'test' || (r === 'official' && it.source === 'mbpp' && mbppOfficialSplit(it.sourceId ?? it.id.split('/').slice(1).join('/')) === 'test');
  };
  return items
    .filter(inTest)
    .map((it) => ({ id: it.id, h: sha256Hex(`${seed}\n${it.id}`) }))
    .sort((a, b) => (a.h < b.h ? -1 : a.h > b.h ? 1 : 0))
    .slice(0, Math.max(0, n))
    .map((x) => x.id);
}
