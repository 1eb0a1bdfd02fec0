// Steps of an episode in Postgres: one row per (episode, index), written by upsert so a retried activity
// rewrites the same rows instead of adding new ones.
//
// Step kinds and their columns:
//   system | user   agent_message = { role, content, reason? }             (prompts, nudges, the final ask)
//   assistant       agent_message = { role, content, toolCalls, answer, latencyMs, cached, requestHash, finishReason }
//   call            call = { toolCallId, tool, arguments, raw };  observation = { text, category, executed: true, result }
//                   (observation is null while the sandbox batch is pending)
//   problem         call = { toolCallId, tool, raw, problem };    observation = { text, executed: false }
//                   (malformed JSON, missing argument, unknown tool, over budget, after submission)
//   submit          call = { toolCallId, tool, raw, description }; observation = { text }
//   example         call = { arguments };                         observation = as for `call`  (in-context)
import { asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { steps } from '../../db/schema/runs';
import { parseJsonb } from '../../db/jsonb';
import { type StepRow, stepAgentMessageSchema, stepCallSchema, stepObservationSchema } from '../../domain/episode/stepRecord';

export async function upsertSteps(db: Db, episodeId: string, rows: StepRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insert(steps)
    .values(
      rows.map((r) => ({
        episodeId,
        idx: r.idx,
        kind: r.kind,
        agentMessage: r.agentMessage ?? null,
        call: r.call ?? null,
        observation: r.observation ?? null,
        tokensIn: r.tokensIn ?? 0,
        tokensOut: r.tokensOut ?? 0,
      })),
    )
    .onConflictDoUpdate({
      target: [steps.episodeId, steps.idx],
      set: {
        kind: sql`excluded.kind`,
        agentMessage: sql`excluded.agent_message`,
        call: sql`excluded.call`,
        observation: sql`excluded.observation`,
        tokensIn: sql`excluded.tokens_in`,
        tokensOut: sql`excluded.tokens_out`,
      },
    });
}

export async function loadSteps(db: Db, episodeId: string, beforeIdx?: number) {
  const read = await db.select().from(steps).where(eq(steps.episodeId, episodeId)).orderBy(asc(steps.idx));
  const rows = read.map((r) => {
    const where = (column: string) => ({ table: 'steps', column, row: `${episodeId}#${r.idx}` });
    return {
      ...r,
      agentMessage: parseJsonb(stepAgentMessageSchema.nullable(), r.agentMessage, where('agent_message')),
      call: parseJsonb(stepCallSchema.nullable(), r.call, where('call')),
      observation: parseJsonb(stepObservationSchema.nullable(), r.observation, where('observation')),
    };
  });
  return beforeIdx === undefined ? rows : rows.filter((r) => r.idx < beforeIdx);
}
