// The conversation of an episode as this worker process last wrote it, so the next turn appends to it
// instead of reading every step back from Postgres. Postgres stays the record (every row is written there
// first); this is only a copy of it, used when it is known to be exact: the same workflow run, and this
// process ran that run's previous turn, which ended at exactly the index the new turn starts from. Anything
// else (another worker ran the previous turn, a retry after a turn that did finish, a restart, a rerun or a
// reset episode: a new run id) misses and reads Postgres as before.
import { Context } from '@temporalio/activity';
import type { z } from 'zod';
import { type StepRow, type StoredStep, stepAgentMessageSchema, stepCallSchema, stepObservationSchema } from '../../domain/episode/stepRecord';

interface Entry {
  nextIdx: number;
  rows: StoredStep[];
}

/** Episodes in flight per process are bounded by the worker's activity slots; this leaves ample room. */
const MAX_ENTRIES = 4096;
const entries = new Map<string, Entry>();

/** The cache key of an episode in the calling workflow run; undefined outside an activity (no caching). */
export function conversationKey(episodeId: string): string | undefined {
  try {
    const run = Context.current().info.workflowExecution?.runId;
    return run ? `${run}\u0000${episodeId}` : undefined;
  } catch {
    return undefined;
  }
}

/** The rows before `idx`, when this process holds exactly them. */
export function cachedConversation(key: string | undefined, idx: number): StoredStep[] | undefined {
  const e = key === undefined ? undefined : entries.get(key);
  return e && e.nextIdx === idx ? e.rows : undefined;
}

/** Rows as Postgres returns them (jsonb drops undefined fields, absent columns are null). */
export function asConversationRows(rows: StepRow[]): StoredStep[] {
  const json = <T>(schema: z.ZodType<T>, v: T | null | undefined): T | null =>
    v === undefined || v === null ? null : schema.parse(JSON.parse(JSON.stringify(v)));
  return rows.map((r) => ({
    idx: r.idx,
    kind: r.kind,
    agentMessage: json(stepAgentMessageSchema, r.agentMessage),
    call: json(stepCallSchema, r.call),
    observation: json(stepObservationSchema, r.observation),
  }));
}

/** `base` with `rows` written over it (same index: replaced), in index order. Neither input is changed. */
export function withRows(base: StoredStep[], rows: StoredStep[]): StoredStep[] {
  const byIdx = new Map(base.map((r) => [r.idx, r]));
  for (const r of rows) byIdx.set(r.idx, r);
  return [...byIdx.values()].sort((a, b) => a.idx - b.idx);
}

/** Called once the turn's rows are in Postgres: `rows` are all rows before `nextIdx`. */
export function rememberConversation(key: string | undefined, nextIdx: number, rows: StoredStep[]): void {
  if (key === undefined) return;
  entries.delete(key);
  entries.set(key, { nextIdx, rows });
  const oldest = entries.keys().next().value;
  if (entries.size > MAX_ENTRIES && oldest !== undefined) entries.delete(oldest);
}

/** Forgets an episode's conversation (it finished). */
export function forgetConversation(key: string | undefined): void {
  if (key !== undefined) entries.delete(key);
}
