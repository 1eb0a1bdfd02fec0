// A build's summary (stored in datasets.summary, printed by `dataset build` and `dataset show`).
import { z } from 'zod';
import { documentSchema } from '../common/jsonDocument';
import type { Duplicate } from './dedup';
import type { Split } from './split';
import type { Rejection } from './types';

export interface SourceSummary {
  raw: number;
  files: { path: string; sha256: string }[];
  /** Rejections by reason: loading (malformed records), static analysis, sandbox checks, duplicates. */
  rejected: Record<string, number>;
  /** The loading part of `rejected` (kept apart so finalising again recounts from scratch). */
  loadRejected: Record<string, number>;
  accepted: number;
  splits: Record<Split, number>;
  /** Accepted methods whose example calls the build generated (the source gave none). */
  inputsGenerated?: number;
}

/** Near-duplicates by behaviour (same outcomes on the shared fingerprint inputs of their input types). */
export interface BehaviourSummary {
  /** Members with a usable fingerprint (at least one value and two distinct outcomes). */
  fingerprinted: number;
  /** Clusters of two or more members, and the members in them: each cluster is in one split. */
  clusters: number;
  clustered: number;
  /** Clusters a split that ignored behaviour would have cut across splits. */
  wouldCross: number;
  /** Clusters with members from two or more sources. */
  crossSource: number;
  /** Entry-point names in test that also occur in train or validation (other behaviour, or no fingerprint). */
  testNamesAlsoTrain: number;
  /** The largest clusters (up to 20), member ids. */
  largest: string[][];
}

/** Code match eligibility per split: members with usable held-out inputs, and the excluded by reason. */
export interface HeldoutSummary {
  eligible: number;
  excluded: Record<string, number>;
  /** Members with held-out inputs of their own (from the source), before generated ones. */
  withOwnHeldout: number;
  /** Generated held-out inputs kept, in total. */
  generated: number;
}

export interface BuildSummary {
  name: string;
  contentHash?: string;
  sources: Record<string, SourceSummary>;
  splits: Record<Split, number>;
  requested: { test: number; validation: number };
  shortfall?: string;
  /** Malformed records (first 200) with their reasons. */
  loadRejects: Rejection[];
  duplicates: Duplicate[];
  /** The split scheme, in words (`proportional` or `by-source: test=humaneval,mbpp; train=codealpaca`). */
  scheme?: string;
  behaviour?: BehaviourSummary;
  heldout?: Record<Split, HeldoutSummary>;
  /** Set while the build runs: how many methods the sandbox still had to check. */
  toCheck?: number;
  error?: string;
}

/** datasets.summary as stored (checked at the fields every build writes, the running one included). */
export const buildSummarySchema = documentSchema<BuildSummary>({
  name: z.string(),
  sources: z.record(z.string(), z.looseObject({})),
  splits: z.looseObject({}),
});

export function emptySourceSummary(): SourceSummary {
  return { raw: 0, files: [], rejected: {}, loadRejected: {}, accepted: 0, splits: { train: 0, validation: 0, test: 0 } };
}

export function bump(m: Record<string, number>, key: string, by = 1): void {
  m[key] = (m[key] ?? 0) + by;
}
