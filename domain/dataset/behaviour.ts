// Near-duplicates by behaviour: methods whose outcomes on the shared fingerprint inputs of their input types
// are identical (the same behaviour key, set by the sandbox check) form a cluster, and a cluster is one unit
// of the split (domain/dataset/split.ts), so such methods never straddle train and test. Also the split-facing
// counts of the summary: clusters, what a behaviour-blind split would have cut, code-match eligibility.
import type { Split, SplitItem, SplitResult } from './split';
import type { BehaviourSummary, HeldoutSummary } from './summary';

export interface BehaviourMember {
  id: string;
  source: string;
  sourceId: string;
  entryPoint: string | null;
  behaviourKey: string | null;
}

/** Split items with cluster ids: the behaviour key when two or more members share it. */
export function clusterItems(ms: BehaviourMember[]): SplitItem[] {
  const count = new Map<string, number>();
  for (const m of ms) if (m.behaviourKey) count.set(m.behaviourKey, (count.get(m.behaviourKey) ?? 0) + 1);
  return ms.map((m) => ({
    id: m.id,
    source: m.source,
    sourceId: m.sourceId,
    cluster: m.behaviourKey && (count.get(m.behaviourKey) ?? 0) > 1 ? m.behaviourKey : null,
  }));
}

export function behaviourSummary(ms: BehaviourMember[], items: SplitItem[], split: SplitResult, blind: SplitResult): BehaviourSummary {
  const splitOf = new Map(split.assignments.map((a) => [a.id, a.split]));
  const blindOf = new Map(blind.assignments.map((a) => [a.id, a.split]));
  const clusters = new Map<string, SplitItem[]>();
  for (const it of items) if (it.cluster) clusters.set(it.cluster, [...(clusters.get(it.cluster) ?? []), it]);
  const list = [...clusters.values()];
  const names = (which: (s: Split) => boolean) => new Set(ms.filter((m) => m.entryPoint && which(splitOf.get(m.id) ?? 'train')).map((m) => m.entryPoint!));
  const testNames = names((s) => s === 'test');
  const otherNames = names((s) => s !== 'test');
  return {
    fingerprinted: ms.filter((m) => m.behaviourKey).length,
    clusters: list.length,
    clustered: list.reduce((n, c) => n + c.length, 0),
    wouldCross: list.filter((c) => new Set(c.map((m) => blindOf.get(m.id))).size > 1).length,
    crossSource: list.filter((c) => new Set(c.map((m) => m.source)).size > 1).length,
    testNamesAlsoTrain: [...testNames].filter((n) => otherNames.has(n)).length,
    largest: [...list]
      .sort((a, b) => b.length - a.length || (a[0]!.id < b[0]!.id ? -1 : 1))
      .slice(0, 20)
      .map((c) => c.map((m) => m.id).sort()),
  };
}

export interface HeldoutMember {
  id: string;
  heldoutInputs: string[];
  heldoutGenerated: string[] | null;
  codeMatchExclusion: string | null;
}

export function heldoutSummary(ms: HeldoutMember[], split: SplitResult): Record<Split, HeldoutSummary> {
  const out: Record<Split, HeldoutSummary> = {
    test: { eligible: 0, excluded: {}, withOwnHeldout: 0, generated: 0 },
    validation: { eligible: 0, excluded: {}, withOwnHeldout: 0, generated: 0 },
    train: { eligible: 0, excluded: {}, withOwnHeldout: 0, generated: 0 },
  };
  const byId = new Map(ms.map((m) => [m.id, m]));
  for (const a of split.assignments) {
    const m = byId.get(a.id);
    if (!m) continue;
    const s = out[a.split];
    if (m.heldoutInputs.length > 0) s.withOwnHeldout++;
    s.generated += m.heldoutGenerated?.length ?? 0;
    if (m.codeMatchExclusion) s.excluded[m.codeMatchExclusion] = (s.excluded[m.codeMatchExclusion] ?? 0) + 1;
    else s.eligible++;
  }
  return out;
}
