// The headline table of a report as text: what `pau report`, `pau bench run` and `npm start` print.
import type { ReportDocument } from './renderHtml';
import { headlineRows, judgedOnlyRows, pairedRows } from './summarize';
import { formatTable } from './table';
import { formatToolCallSources } from './toolCallSources';
import { SMALL_JUDGE_WARNING } from '../llm/localModels';

export function headlineText(doc: ReportDocument): string {
  const { headers, rows } = headlineRows(doc.summary);
  const judge = doc.judgeModel ? `${doc.judgeModel}${doc.judgeIsLocal ? ` (local; ${SMALL_JUDGE_WARNING})` : ''}` : 'none';
  const judgedOnly = judgedOnlyRows(doc.summary);
  const lines = [
    `run ${doc.runId}: ${doc.summary.totals.episodes} episodes, judge ${judge}`,
    formatTable(headers, rows),
    'all ended episodes counted (failed / unjudged / unparsable as score 1, code match 0); 95% CIs resample methods',
    '',
    'judged episodes only:',
    formatTable(judgedOnly.headers, judgedOnly.rows),
  ];
  const paired = pairedRows(doc.summary);
  if (paired.rows.length > 0) lines.push('', 'paired per method (a - b, wins/ties/losses of a):', formatTable(paired.headers, paired.rows));
  // The scripted anchors call natively by construction; the table is about the real models.
  const sources = (doc.toolCallSources ?? []).filter((r) => r.turns > 0 && !r.model.startsWith('mock-'));
  if (sources.length > 0) lines.push('', 'tool calls by source (interactive):', formatToolCallSources(sources));
  if (doc.compare) {
    const d = doc.compare.deltas.filter((x) => x.metric === 'score' || x.metric === 'codeMatch');
    lines.push('', `compared with ${doc.compare.runId}:`);
    lines.push(
      formatTable(
        ['model', 'setting', 'metric', 'this', 'other', 'delta'],
        d.map((x) => [
          x.model,
          x.setting,
          x.metric,
          x.current?.toFixed(3) ?? '-',
          x.previous?.toFixed(3) ?? '-',
          x.delta === null ? '-' : `${x.delta >= 0 ? '+' : ''}${x.delta.toFixed(3)}`,
        ]),
      ),
    );
  }
  return lines.join('\n');
}
