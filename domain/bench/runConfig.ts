// Whether a run's stored config is the config a start asks for: a run id names one run, so a start with
// another config under the same id is refused instead of mixing episodes of two runs. Pure (workflow-safe).
import type { BenchmarkConfig } from './types';
import { canonicalJson as canonical } from '../common/hash';

/** The config as the caller gave it: the stored row also holds the frozen method list, which is not input. */
export function requestedConfig(stored: BenchmarkConfig & { resolvedMethodIds?: string[] }): BenchmarkConfig {
  const { resolvedMethodIds: _frozen, ...config } = stored;
  return config;
}

export function sameRunConfig(stored: BenchmarkConfig & { resolvedMethodIds?: string[] }, requested: BenchmarkConfig): boolean {
  return canonical(requestedConfig(stored)) === canonical(requestedConfig(requested));
}

/** How a finished run is reported: failed (or individually cancelled) episodes never leave it a clean `completed`. */
export function finishedRunStatus(totals: { failed: number; cancelled?: number }): 'completed' | 'completed_with_failures' {
  return totals.failed > 0 || (totals.cancelled ?? 0) > 0 ? 'completed_with_failures' : 'completed';
}
