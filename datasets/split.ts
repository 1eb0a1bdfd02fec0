// Deterministic, seeded split stratified by source. Each source gets a share of the test (and validation)
// split proportional to its share of the pool (largest remainder, ties by source order); inside a source,
// methods are ordered by sha256(seed + id) and the first go to test, the next to validation, the rest to
// train. When the pool is smaller than requested, test is filled first and the shortfall is reported.
import { sha256Hex } from './checksum';
import { SOURCE_NAMES } from './sources';

export type Split = 'train' | 'validation' | 'test';

export interface SplitResult {
  assignments: { id: string; split: Split; position: number }[];
  requested: { test: number; validation: number };
  actual: Record<Split, number>;
  /** Present when the pool could not give the requested sizes. */
  shortfall?: string;
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

export function stratifiedSplit(items: { id: string; source: string }[], sizes: { test: number; validation: number }, seed: string): SplitResult {
  const bySource = new Map<string, { id: string; h: string }[]>();
  for (const s of SOURCE_NAMES) bySource.set(s, []);
  for (const it of items) {
    if (!bySource.has(it.source)) bySource.set(it.source, []);
    bySource.get(it.source)!.push({ id: it.id, h: sha256Hex(`${seed}\n${it.id}`) });
  }
  for (const list of bySource.values()) list.sort((a, b) => (a.h < b.h ? -1 : a.h > b.h ? 1 : 0));
  const n = items.length;
  const testN = Math.min(sizes.test, n);
  const valN = Math.min(sizes.validation, n - testN);
  const counts = [...bySource.entries()].map(([k, v]) => [k, v.length] as [string, number]);
  const testQ = allocate(testN, counts);
  const valQ = allocate(
    valN,
    counts.map(([k, v]) => [k, v - (testQ.get(k) ?? 0)]),
  );
  const assignments: SplitResult['assignments'] = [];
  const pos: Record<Split, number> = { test: 0, validation: 0, train: 0 };
  for (const [source, list] of bySource) {
    const t = testQ.get(source) ?? 0;
    const v = valQ.get(source) ?? 0;
    list.forEach((m, i) => {
      const split: Split = i < t ? 'test' : i < t + v ? 'validation' : 'train';
      assignments.push({ id: m.id, split, position: 0 });
    });
  }
  // Positions: a stable order inside each split (by the seeded hash), for paging and sampling.
  const hashOf = new Map(items.map((it) => [it.id, sha256Hex(`${seed}\n${it.id}`)]));
  for (const split of ['test', 'validation', 'train'] as const) {
    const inSplit = assignments.filter((a) => a.split === split).sort((a, b) => (hashOf.get(a.id)! < hashOf.get(b.id)! ? -1 : 1));
    inSplit.forEach((a, i) => {
      a.position = i;
    });
    pos[split] = inSplit.length;
  }
  const result: SplitResult = { assignments, requested: { ...sizes }, actual: pos };
  if (testN < sizes.test || valN < sizes.validation) {
    result.shortfall = `pool of ${n} accepted methods: test ${testN} of ${sizes.test} requested, validation ${valN} of ${sizes.validation}, train ${n - testN - valN}`;
  } else if (n - testN - valN === 0 && n > 0) {
    result.shortfall = `pool of ${n} accepted methods leaves no training split`;
  }
  return result;
}
