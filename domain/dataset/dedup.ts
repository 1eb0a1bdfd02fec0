// Exact and near-duplicate removal across (and within) sources. Rule (docs/datasets.md, "Duplicates"):
// methods are visited in a fixed order (source order humaneval, mbpp, cruxeval, codealpaca; then source id,
// numbers compared as numbers); the first method with a given codeHash (exact) or nearHash (near) is kept,
// later ones are removed as duplicates of it.
import { SOURCE_NAMES } from './sources';

export interface Dedupable {
  id: string;
  source: string;
  sourceId: string;
  codeHash: string;
  nearHash: string;
}

export interface Duplicate {
  id: string;
  of: string;
  kind: 'duplicate-exact' | 'duplicate-near';
}

const collator = new Intl.Collator('en', { numeric: true });

export function canonicalOrder<T extends { source: string; sourceId: string }>(ms: T[]): T[] {
  const rank = (s: string) => {
    const i = (SOURCE_NAMES as readonly string[]).indexOf(s);
    return i < 0 ? SOURCE_NAMES.length : i;
  };
  return [...ms].sort((a, b) => rank(a.source) - rank(b.source) || collator.compare(a.sourceId, b.sourceId));
}

export function dedup<T extends Dedupable>(ms: T[]): { kept: T[]; duplicates: Duplicate[] } {
  const exact = new Map<string, string>();
  const near = new Map<string, string>();
  const kept: T[] = [];
  const duplicates: Duplicate[] = [];
  for (const m of canonicalOrder(ms)) {
    const e = exact.get(m.codeHash);
    if (e) {
      duplicates.push({ id: m.id, of: e, kind: 'duplicate-exact' });
      continue;
    }
    const n = near.get(m.nearHash);
    if (n) {
      duplicates.push({ id: m.id, of: n, kind: 'duplicate-near' });
      continue;
    }
    exact.set(m.codeHash, m.id);
    near.set(m.nearHash, m.id);
    kept.push(m);
  }
  return { kept, duplicates };
}
