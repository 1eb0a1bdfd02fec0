// The one reader of a run's `config` and `summary`: the kind's schema (domain/runs/runDocuments.ts)
// through parseJsonb, so a row that does not fit fails here, naming the run.
import { parseJsonb } from './jsonb';
import type { RunJudgeFields } from '../domain/judge/config';
import { type RunConfigOf, type RunKind, type RunSummaryOf, runConfigSchemas, runSummarySchemas } from '../domain/runs/runDocuments';

/** A run's stored config, parsed with its kind's schema; throws StoredJsonError naming the run when it does not fit. */
export function parseRunConfig<K extends RunKind>(kind: K, json: unknown, runId: string): RunConfigOf<K> {
  return parseJsonb(runConfigSchemas[kind], json, { table: 'runs', column: 'config', row: runId }) as RunConfigOf<K>;
}

/** A run's stored summary (null before the run wrote one), parsed with its kind's schema. */
export function parseRunSummary<K extends RunKind>(kind: K, json: unknown, runId: string): RunSummaryOf<K> | null {
  return parseJsonb(runSummarySchemas[kind].nullable(), json, { table: 'runs', column: 'summary', row: runId }) as RunSummaryOf<K> | null;
}

/** The judge fields of a run's config (RunJudgeFields): a benchmark's or a GRPO run's; none for the other kinds. */
export function parseRunJudgeFields(kind: RunKind, json: unknown, runId: string): RunJudgeFields {
  return kind === 'benchmark' || kind === 'grpo' ? parseRunConfig(kind, json, runId) : {};
}
