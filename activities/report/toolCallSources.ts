// Where the agents' tool calls came from, per model: native `tool_calls`, parsed from the message text,
// or messages that tried to call a tool but could not be read (issue 11). Counted over the assistant
// steps of a run's episodes (`agentMessage.toolCallSource` / `callCount`, written by the agent turn).
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { formatTable } from '../../scripts/lib/table';

export interface ToolCallSourceRow {
  model: string;
  /** Assistant turns in interactive episodes. */
  turns: number;
  native: number;
  text: number;
  /** Messages with a tool-call attempt that could not be read. */
  unparsable: number;
}

export async function loadToolCallSources(db: Db, runId: string): Promise<ToolCallSourceRow[]> {
  const r = await db.execute(sql`
    select e.model as model,
           count(*)::int as turns,
           coalesce(sum(case when coalesce(s.agent_message->>'toolCallSource', 'native') = 'native'
                             then jsonb_array_length(coalesce(s.agent_message->'toolCalls', '[]'::jsonb)) else 0 end), 0)::int as native,
           coalesce(sum(case when s.agent_message->>'toolCallSource' = 'text' then (s.agent_message->>'callCount')::int else 0 end), 0)::int as text,
           count(*) filter (where s.agent_message->>'toolCallSource' = 'unparsable')::int as unparsable
      from steps s join episodes e on e.id = s.episode_id
     where e.run_id = ${runId} and s.kind = 'assistant' and e.setting = 'interactive'
     group by e.model order by e.model`);
  return (r.rows as Record<string, unknown>[]).map((x) => ({ model: String(x.model), turns: Number(x.turns), native: Number(x.native), text: Number(x.text), unparsable: Number(x.unparsable) }));
}

const share = (n: number, total: number) => (total === 0 ? '-' : `${((100 * n) / total).toFixed(0)}%`);

export function toolCallSourceTable(rows: ToolCallSourceRow[]): { headers: string[]; rows: string[][] } {
  return {
    headers: ['model', 'turns', 'native calls', 'parsed from text', 'unparsable msgs', 'native / text / unparsable'],
    rows: rows.map((r) => {
      const total = r.native + r.text + r.unparsable;
      return [r.model, String(r.turns), String(r.native), String(r.text), String(r.unparsable), `${share(r.native, total)} / ${share(r.text, total)} / ${share(r.unparsable, total)}`];
    }),
  };
}

export function formatToolCallSources(rows: ToolCallSourceRow[]): string {
  const t = toolCallSourceTable(rows);
  return formatTable(t.headers, t.rows);
}
