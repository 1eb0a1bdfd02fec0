// The one reader of a run's `config` and `summary`: the kind's schema (domain/runs/runDocuments.ts)
// through parseJsonb, so a row that does not fit fails here, naming the run.
// The judge reads only its own fields: db/runJudgeFields.ts.
import { parseJsonb } from './jsonb';
import { type RunConfigOf, type RunSummaryOf, runConfigSchemas, runSummarySchemas } from '../domain/runs/runDocuments';
import type { RunKind } from '../domain/runs/runKinds';

/** A run's stored config, parsed with its kind's schema; throws StoredJsonError naming the run when it does not fit. */
export function parseRunConfig<K extends RunKind>(kind: K, json: unknown, runId: string): RunConfigOf<K> {
  return parseJsonb(runConfigSchemas[kind], json, { table: 'runs', column: 'config', row: runId }) as RunConfigOf<K>;
}

/** A run's stored summary (null before the run wrote one), parsed with its kind's schema. */
export function parseRunSummary<K extends RunKind>(kind: K, json: unknown, runId: string): RunSummaryOf<K> | null {
  return parseJsonb(runSummarySchemas[kind].nullable(), json, { table: 'runs', column: 'summary', row: runId }) as RunSummaryOf<K> | null;
}
