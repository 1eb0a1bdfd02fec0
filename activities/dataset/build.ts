// The two ends of a dataset build, as plain functions over a database handle (the activities in
// activities/dataset wrap them; tests call them directly): prepare (load, analyse, normalise, persist) and
// finalise (dedup, split, hash, members). The sandbox checks in between are activities/dataset/checkBatch.ts.
import type { Db } from '../../db/client';
import { analyzeCandidates, type AnalyzeOptions } from './analyze';
import { BuildConfig } from '../../domain/dataset/config';
import { dedup } from '../../domain/dataset/dedup';
import type { LocateOptions } from '../../platform/dataset/fetch';
import { datasetContentHash } from '../../domain/dataset/contentHash';
import { defaultLocateOptions, loadSource } from '../../platform/dataset/loaders/index';
import { normalise } from '../../domain/dataset/method';
import { behaviourSummary, clusterItems, heldoutSummary } from '../../domain/dataset/behaviour';
import { likelyTestHead, splitMethods } from '../../domain/dataset/split';
import { getDataset, methodsByIds, startDatasetRow, upsertMethods, writeDatasetMembers } from '../../platform/dataset/store';
import { bump, emptySourceSummary, type BuildSummary } from '../../domain/dataset/summary';
import type { LoadResult } from '../../domain/dataset/types';

export interface PrepareResult {
  candidates: number;
  staticRejected: number;
  /** Ids the sandbox must check (new or changed since the last build). */
  toCheck: string[];
  /** Accepted or rejected by the sandbox in an earlier build with the same check key. */
  alreadyChecked: number;
  /** With `first`: the candidates likeliest to open the test split, in that order (likelyTestHead). */
  head?: string[];
}

export interface PrepareOptions {
  locate?: LocateOptions;
  analyze?: AnalyzeOptions;
  /** Replace loading (tests inject malformed records). */
  load?: (source: BuildConfig['sources'][number]) => Promise<LoadResult>;
  onProgress?: (what: string) => void;
  /** Test methods a caller wants before the build ends: `head` then names the candidates to check first. */
  first?: number;
}

/** Candidates checked first for `first` wanted methods: the sandbox rejects some, so a few times more. */
export const headSize = (first: number) => 3 * first + 6;

export async function prepareBuild(db: Db, cfgIn: unknown, workflowId: string, opts: PrepareOptions = {}): Promise<PrepareResult> {
  const cfg = BuildConfig.parse(cfgIn);
  const summary: BuildSummary = {
    name: cfg.name,
    sources: {},
    splits: { train: 0, validation: 0, test: 0 },
    requested: cfg.split,
    loadRejects: [],
    duplicates: [],
  };
  const loaded: LoadResult[] = [];
  for (const source of cfg.sources) {
    opts.onProgress?.(`loading ${source}`);
    const locate = opts.locate ?? (cfg.dataDir ? { ...defaultLocateOptions(), dataDir: cfg.dataDir } : undefined);
    const r = opts.load ? await opts.load(source) : await loadSource(source, locate, cfg.codealpaca);
    if (cfg.limit !== undefined) {
      r.candidates = r.candidates.slice(0, cfg.limit);
      r.rejects = r.rejects.slice(0, Math.max(0, cfg.limit - r.candidates.length));
      r.raw = r.candidates.length + r.rejects.length;
    }
    loaded.push(r);
    const s = emptySourceSummary();
    s.raw = r.raw;
    s.files = r.files;
    for (const x of r.rejects) bump(s.loadRejected, x.reason);
    s.rejected = { ...s.loadRejected };
    summary.sources[source] = s;
    summary.loadRejects.push(...r.rejects.slice(0, Math.max(0, 200 - summary.loadRejects.length)));
  }
  const cands = loaded.flatMap((r) => r.candidates);
  opts.onProgress?.(`analysing ${cands.length} candidates`);
  const analyses = await analyzeCandidates(cands, opts.analyze);
  const items = cands.map((c, i) => normalise(c, analyses[i]!, cfg));
  opts.onProgress?.(`writing ${items.length} methods`);
  const toCheck = await upsertMethods(db, items);
  const staticRejected = items.filter((x) => x.method.verdict === 'rejected').length;
  summary.toCheck = toCheck.length;
  await startDatasetRow(
    db,
    cfg.name,
    workflowId,
    cfg,
    items.map((x) => x.method.id),
    summary,
  );
  const head = opts.first
    ? likelyTestHead(
        items.filter((x) => x.method.verdict !== 'rejected').map((x) => ({ id: x.method.id, source: x.method.source, sourceId: x.method.sourceId })),
        cfg.split,
        cfg.seed,
        headSize(opts.first),
      )
    : undefined;
  return { candidates: items.length, staticRejected, toCheck, alreadyChecked: items.length - staticRejected - toCheck.length, ...(head ? { head } : {}) };
}

export class UncheckedMethodsError extends Error {
  override name = 'UncheckedMethodsError';
}

/** The split scheme in words, for the summary. */
export function schemeText(cfg: BuildConfig): string {
  if (cfg.split.scheme !== 'by-source') return `proportional (test ${cfg.split.test}, validation ${cfg.split.validation}, by source share)`;
  const groups = new Map<string, string[]>();
  for (const src of cfg.sources) {
    const to = cfg.split.bySource[src] ?? 'train';
    groups.set(to, [...(groups.get(to) ?? []), src]);
  }
  const parts = ['test', 'official', 'validation', 'train'].filter((k) => groups.has(k)).map((k) => `${k}=${groups.get(k)!.join(',')}`);
  return `by-source: ${parts.join('; ')}${groups.has('validation') || groups.has('official') ? '' : ` (validation ${cfg.split.validation} from train sources)`}`;
}

export async function finalizeBuild(db: Db, name: string): Promise<BuildSummary> {
  const row = await getDataset(db, name);
  if (!row) throw new Error(`dataset ${name} was not prepared`);
  const cfg = BuildConfig.parse(row.config);
  if (!row.summary) throw new Error(`dataset ${name} has no summary to finalise`);
  const summary = row.summary;
  const ms = await methodsByIds(db, row.candidateIds);
  for (const s of Object.values(summary.sources)) {
    s.rejected = { ...s.loadRejected };
    s.accepted = 0;
    s.splits = { train: 0, validation: 0, test: 0 };
    delete s.inputsGenerated;
  }
  const pending = ms.filter((m) => m.verdict === 'pending');
  if (pending.length)
    throw new UncheckedMethodsError(
      `${pending.length} methods were never checked, e.g. ${pending
        .slice(0, 3)
        .map((m) => m.id)
        .join(', ')}`,
    );
  for (const m of ms) {
    const s = summary.sources[m.source];
    if (s && m.verdict === 'rejected') bump(s.rejected, m.rejectReasons[0] ?? 'rejected');
  }
  const accepted = ms.filter((m) => m.verdict === 'accepted').map((m) => ({ ...m, codeHash: m.codeHash ?? '', nearHash: m.nearHash ?? '' }));
  const { kept, duplicates } = dedup(accepted);
  const sourceOf = new Map(ms.map((m) => [m.id, m.source]));
  for (const d of duplicates) bump(summary.sources[sourceOf.get(d.id) ?? '']?.rejected ?? {}, d.kind);
  summary.duplicates = duplicates;
  // Near-duplicates by behaviour stay together: each cluster is one unit of the split.
  const items = clusterItems(kept);
  const split = splitMethods(items, cfg.split, cfg.seed);
  const blind = splitMethods(
    items.map((it) => ({ ...it, cluster: null })),
    cfg.split,
    cfg.seed,
  );
  summary.behaviour = behaviourSummary(kept, items, split, blind);
  summary.heldout = heldoutSummary(kept, split);
  summary.scheme = schemeText(cfg);
  const byId = new Map(kept.map((m) => [m.id, m]));
  for (const a of split.assignments) {
    const m = byId.get(a.id)!;
    const s = summary.sources[m.source]!;
    s.accepted++;
    s.splits[a.split]++;
    if (typeof m.meta?.inputsGenerated === 'number') s.inputsGenerated = (s.inputsGenerated ?? 0) + 1;
  }
  summary.splits = split.actual;
  summary.requested = split.requested;
  if (split.shortfall) summary.shortfall = split.shortfall;
  else delete summary.shortfall;
  delete summary.toCheck;
  delete summary.error;
  const files = Object.values(summary.sources).flatMap((s) => s.files);
  const contentHash = datasetContentHash(
    cfg,
    files,
    split.assignments.map((a) => {
      const m = byId.get(a.id)!;
      return {
        id: m.id,
        split: a.split,
        codeHash: m.codeHash,
        signature: m.signature ?? '',
        entryPoint: m.entryPoint ?? '',
        goldDescription: m.goldDescription,
        probeInputs: m.probeInputs,
        heldoutInputs: m.heldoutInputs,
        heldoutGenerated: m.heldoutGenerated ?? [],
        codeMatchExclusion: m.codeMatchExclusion,
      };
    }),
  );
  summary.contentHash = contentHash;
  await writeDatasetMembers(db, name, split.assignments, contentHash, summary);
  return summary;
}
