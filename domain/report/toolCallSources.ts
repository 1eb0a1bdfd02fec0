// Where the agents' tool calls came from, per model: native `tool_calls`, parsed from the message text,
// or messages that tried to call a tool but could not be read (issue 11). Counted over the assistant
// steps of a run's episodes (`agentMessage.toolCallSource` / `callCount`, written by the agent turn; loaded by
// db/queries/reportRows.ts). Pure code.
import { formatTable } from './table';

export interface ToolCallSourceRow {
  model: string;
  /** Assistant turns in interactive episodes. */
  turns: number;
  native: number;
  text: number;
  /** Messages with a tool-call attempt that could not be read. */
  unparsable: number;
}

const share = (n: number, total: number) => (total === 0 ? '-' : `${((100 * n) / total).toFixed(0)}%`);

export function toolCallSourceTable(rows: ToolCallSourceRow[]): { headers: string[]; rows: string[][] } {
  return {
    headers: ['model', 'turns', 'native calls', 'parsed from text', 'unparsable msgs', 'native / text / unparsable'],
    rows: rows.map((r) => {
      const total = r.native + r.text + r.unparsable;
      return [
        r.model,
        String(r.turns),
        String(r.native),
        String(r.text),
        String(r.unparsable),
        `${share(r.native, total)} / ${share(r.text, total)} / ${share(r.unparsable, total)}`,
      ];
    }),
  };
}

export function formatToolCallSources(rows: ToolCallSourceRow[]): string {
  const t = toolCallSourceTable(rows);
  return formatTable(t.headers, t.rows);
}
