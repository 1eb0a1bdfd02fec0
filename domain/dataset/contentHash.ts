// The dataset's content hash: the same sources, rules and configuration give the same hash. It covers the
// source files' checksums, the filter version, the result-shaping configuration (not the name, nor
// batching) and every member's id, split and content.
import { sha256Hex } from '../common/hash';
import { FILTER_VERSION, type BuildConfig } from './config';

export interface HashMember {
  id: string;
  split: string;
  codeHash: string;
  signature: string;
  entryPoint: string;
  goldDescription: string | null;
  probeInputs: string[];
  heldoutInputs: string[];
  heldoutGenerated: string[];
  codeMatchExclusion: string | null;
}

export function resultConfig(cfg: BuildConfig) {
  return {
    sources: [...cfg.sources].sort(),
    limit: cfg.limit ?? null,
    seed: cfg.seed,
    split: cfg.split,
    heldoutFraction: cfg.heldoutFraction,
    cruxevalGold: cfg.cruxevalGold,
    limits: cfg.limits,
    inputs: cfg.inputs,
  };
}

export function datasetContentHash(cfg: BuildConfig, files: { path: string; sha256: string }[], members: HashMember[]): string {
  const sorted = [...members].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const filesSorted = [...files].sort((a, b) => (a.path < b.path ? -1 : 1));
  const body = JSON.stringify({
    v: FILTER_VERSION,
    config: resultConfig(cfg),
    files: filesSorted,
    members: sorted.map((m) => [
      m.id,
      m.split,
      m.codeHash,
      m.signature,
      m.entryPoint,
      m.goldDescription,
      m.probeInputs,
      m.heldoutInputs,
      m.heldoutGenerated,
      m.codeMatchExclusion,
    ]),
  });
  return `sha256:${sha256Hex(body)}`;
}
