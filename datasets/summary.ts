// A build's summary (stored in datasets.summary, printed by `dataset build` and `dataset show`).
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
  /** Set while the build runs: how many methods the sandbox still had to check. */
  toCheck?: number;
  error?: string;
}

export function emptySourceSummary(): SourceSummary {
  return { raw: 0, files: [], rejected: {}, loadRejected: {}, accepted: 0, splits: { train: 0, validation: 0, test: 0 } };
}

export function bump(m: Record<string, number>, key: string, by = 1): void {
  m[key] = (m[key] ?? 0) + by;
}
