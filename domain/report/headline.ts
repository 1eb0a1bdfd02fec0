// The headline of a report as text: what `pau report`, `pau bench run` and `npm start` print. The judge
// card comes first; without a qualified judge there is no score headline (domain/report/judgeCardView.ts).
import { NAMES_ANONYMISED_TEXT, namedReportView } from './nameFloor';
import type { ReportDocument } from './renderHtml';
import { cardMeasureLines } from '../judge/cardSummary';
import { cardCheckRows, cardTitle, comparedView, noJudgeText, reportView, selfJudgeText, tableView } from './judgeCardView';
import { comparedRows } from './runComparison';
import { codeMatchRows, headlineRows, judgedOnlyRows, metricShown, POWER_TEXT, pairedRows } from './summarize';
import { formatTable } from './table';
import { formatToolCallSources } from './toolCallSources';
import { SMALL_JUDGE_WARNING } from '../llm/localModels';

const indent = (text: string) =>
  text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');

/** The judge card as text lines (title, checks, measures), or a line saying the report has none (no judge, or built before cards). */
export function judgeCardLines(doc: Pick<ReportDocument, 'judgeCard' | 'judgeModel' | 'runId'>): string[] {
  if (doc.judgeModel === null) return [noJudgeText(doc.runId)];
  const status = doc.judgeCard;
  if (!status) return ['judge card: none attached to this report (built before judge cards)'];
  if (status.status === 'missing') return [cardTitle(status)];
  return [
    cardTitle(status),
    indent(formatTable(['check', 'model', 'value', 'needs', 'pass'], cardCheckRows(status.card))),
    ...cardMeasureLines(status.card).map((l) => `  ${l}`),
  ];
}

/** The comparison's metrics in the terminal: the judge's where both runs show them, and coverage, which needs no judge. */
const COMPARED_IN_TEXT = ['score', 'codeMatchUnobserved', 'statementCoverage'] as const;

export function headlineText(doc: ReportDocument): string {
  const { view, floor } = namedReportView(doc);
  const tv = tableView(view);
  const { headers, rows } = headlineRows(doc.summary, tv);
  const judge = doc.judgeModel ? `${doc.judgeModel}${doc.judgeIsLocal ? ` (local; ${SMALL_JUDGE_WARNING})` : ''}` : 'none';
  const selfJudge = selfJudgeText(doc.run?.config);
  const lines = [
    ...(view.forcedBanner ? [view.forcedBanner] : []),
    `run ${doc.runId}: ${doc.summary.totals.episodes} episodes, judge ${judge}`,
    ...(selfJudge ? [selfJudge] : []),
    ...(floor.names === 'anonymised' ? [NAMES_ANONYMISED_TEXT] : []),
    ...judgeCardLines(doc),
    '',
    ...(view.withheld ? [view.withheld, ''] : []),
    ...(view.scores && doc.modeNotes?.length ? [...doc.modeNotes, ''] : []),
    formatTable(headers, rows),
    view.scores
      ? `all ended episodes counted (failed / unjudged / unparsable as score 1, code match 0); code match on held-out inputs the agent never saw; 95% CIs resample methods`
      : `judge-free measures; all ended episodes counted${view.codeMatch ? ' (failed / unjudged as code match 0); code match on held-out inputs the agent never saw' : ''}; 95% CIs resample methods`,
  ];
  const retest = doc.judgeCard && doc.judgeCard.status !== 'missing' ? doc.judgeCard.card.measures.retest : undefined;
  if (view.scores && retest?.sd != null)
    lines.push(
      `judge test–retest SD ${retest.sd.toFixed(3)} per description (its card: ${retest.pairs} descriptions asked twice): a score difference within it is the judge's own noise`,
    );
  if (view.codeMatch && view.emptyFloor !== null) lines.push(`empty-description floor (${floor.label}): ${(100 * view.emptyFloor).toFixed(1)}%`);
  else if (view.codeMatch && floor.names === 'anonymised') lines.push(floor.label);
  if (view.codeMatch) {
    const cm = codeMatchRows(doc.summary);
    lines.push('', 'code match, unseen vs all held-out inputs:', formatTable(cm.headers, cm.rows));
  }
  if (view.scores || view.codeMatch) {
    const judgedOnly = judgedOnlyRows(doc.summary, tv);
    lines.push('', 'judged episodes only:', formatTable(judgedOnly.headers, judgedOnly.rows));
  }
  const paired = pairedRows(doc.summary, tv);
  if (paired.tooFew) lines.push('', `paired per method: ${paired.tooFew}`);
  else if (paired.rows.length > 0) {
    lines.push('', 'paired per method (a - b, wins/ties/losses of a):', formatTable(paired.headers, paired.rows));
    if (paired.leftOut > 0) lines.push(`(${paired.leftOut} comparisons over too few methods left out)`);
    lines.push(POWER_TEXT);
  }
  // The scripted anchors call natively by construction; the table is about the real models.
  const sources = (doc.toolCallSources ?? []).filter((r) => r.turns > 0 && !r.model.startsWith('mock-'));
  if (sources.length > 0) lines.push('', 'tool calls by source (interactive):', formatToolCallSources(sources));
  if (doc.compare) {
    const cv = comparedView(view, reportView(doc.compare), doc.compare.runId);
    const d = doc.compare.deltas.filter((x) => (COMPARED_IN_TEXT as readonly string[]).includes(x.metric) && metricShown(cv, x.metric));
    lines.push('', `compared with ${doc.compare.runId}:`);
    if (cv.withheld) lines.push(cv.withheld);
    if (d.length > 0) {
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
    // Documents built since the paired comparison: the same methods paired, with the power of each difference.
    const c = doc.compare.comparison ? comparedRows(doc.compare.comparison, cv, COMPARED_IN_TEXT) : null;
    if (c && c.rows.length > 0) lines.push('', `paired by method, this run - ${doc.compare.runId}:`, formatTable(c.headers, c.rows), POWER_TEXT);
  }
  return lines.join('\n');
}
