// The judge's own fields of a run's config (domain/judge/config.ts RunJudgeFields), checked alone: judging an
// episode loads no run kind's whole schema (db/runDocuments.ts reads the whole config).
import { parseJsonb } from './jsonb';
import { type RunJudgeFields, runJudgeFieldsSchema } from '../domain/judge/config';
import type { RunKind } from '../domain/runs/runKinds';

/** The judge fields of a run's config: a benchmark's or a GRPO run's; none for the other kinds. */
export function parseRunJudgeFields(kind: RunKind, json: unknown, runId: string): RunJudgeFields {
  return kind === 'benchmark' || kind === 'grpo' ? parseJsonb(runJudgeFieldsSchema, json, { table: 'runs', column: 'config', row: runId }) : {};
}
