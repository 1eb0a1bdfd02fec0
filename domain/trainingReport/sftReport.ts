// The SFT run report (kind 'sft' in the reports table, produced at the run's end): what was trained on what,
// what the data left out and why (not as served, too long, cut turns: issue 23), and the checkpoint beside
// its base with paired differences. HTML and the terminal's text from one document. Pure.
import { gateLine } from '../report/policyMoved';
import type { SftTrainConfig, SftTrainingFigures } from '../training/sftTrain';
import { esc, REPORT_STYLE, table } from '../report/html';
import { type SftComparison, formatSftComparison, shownSftRows } from '../report/sftComparison';
import type { JudgeCardStatus } from '../judge/card';
import { cardTitle, type ReportView, reportView } from '../report/judgeCardView';
import { METRIC_LABEL, fmtPaired, isShare, POWER_HEADERS, POWER_TEXT, powerCells } from '../report/summarize';
import { countsLine, type TrainingCounts } from './trainingCounts';

export interface SftReportDocument {
  kind: 'sft';
  runId: string;
  status: string;
  generatedAt: string;
  config: SftTrainConfig;
  checkpointModel: string | null;
  training: SftTrainingFigures | null;
  evalRunId: string | null;
  comparison: SftComparison | null;
  error: string | null;
  /** The evaluation judge's card: it decides whether the comparison shows scores and code match (judgeCardView.ts). */
  judgeCard?: JudgeCardStatus;
}

/** What the comparison may show: the benchmark report's rule for the evaluation run's judge. */
export function sftView(d: Pick<SftReportDocument, 'comparison' | 'judgeCard'>): ReportView {
  return reportView({ judgeModel: d.comparison?.judgeModel ?? null, judgeCard: d.judgeCard });
}

/** The run's counts (null before training finished). */
export function sftCounts(d: Pick<SftReportDocument, 'training' | 'config'>): TrainingCounts | null {
  const t = d.training;
  if (!t) return null;
  return {
    given: t.examples,
    notAsServed: t.notAsServed ?? null,
    droppedTooLong: t.droppedTooLong ?? null,
    longestTokens: t.longestTokens ?? null,
    lengthCutMasked: t.lengthCutMasked ?? null,
    maxLength: d.config.maxLength ?? null,
  };
}

const f4 = (x: number | null | undefined, d = 4) => (x === null || x === undefined ? '-' : x.toFixed(d));

/** The training line as `sft train` prints it. */
export function sftTrainingLine(model: string, t: SftTrainingFigures): string {
  return `trained ${model} on ${t.examples} examples: ${t.steps} steps, loss ${f4(t.firstLoss)} -> ${f4(t.finalLoss)}, ${f4(t.sPerStep, 1)} s/step, ${f4(t.tokensPerS, 1)} tok/s`;
}

/** The report as the terminal prints it. */
export function renderSftText(d: SftReportDocument): string {
  const lines = [`SFT run ${d.runId} (${d.status}): ${d.config.base} on data set ${d.config.data}`];
  if (d.training) lines.push(sftTrainingLine(d.checkpointModel ?? '(no checkpoint)', d.training));
  const c = sftCounts(d);
  lines.push(c ? countsLine(c, 'example') : 'not trained: not counted (no training figures)');
  if (d.error) lines.push(`error: ${d.error}`);
  if (d.comparison) lines.push('', ...(d.judgeCard ? [cardTitle(d.judgeCard)] : []), formatSftComparison(d.comparison, sftView(d)));
  else lines.push(d.evalRunId ? `evaluation run ${d.evalRunId}: no comparison recorded` : 'no evaluation (--no-eval)');
  return lines.join('\n');
}

export function renderSftHtml(d: SftReportDocument): string {
  const t = d.training;
  const c = sftCounts(d);
  const sections: string[] = [];
  sections.push(
    '<h2>Training</h2>' +
      (t
        ? table(
            ['checkpoint', 'examples', 'steps', 'loss first -> final', 's/step', 'tok/s', 'resumed from step'],
            [
              [
                d.checkpointModel ?? '-',
                String(t.examples),
                String(t.steps),
                `${f4(t.firstLoss)} -> ${f4(t.finalLoss)}`,
                f4(t.sPerStep, 1),
                f4(t.tokensPerS, 1),
                String(t.resumedFromStep),
              ],
            ],
          )
        : '<p>No training figures (the run did not finish training).</p>'),
  );
  sections.push(
    `<h2>Left out of training</h2><p>${esc(c ? countsLine(c, 'example') : 'not counted')}</p>` +
      "<p>Not as served: an example whose model requests are not in the ledger as its conversation says is left out (never trained on a prompt that was not sent). Too long: an example longer than max_length (by default the base's serving context) is dropped, never cut; the trainer refuses a job that would drop more than 1 %. Cut turns: turns cut at max_tokens train without the end-of-turn token the model never sampled.</p>",
  );
  const cmp = d.comparison;
  if (cmp) {
    const e = cmp.episodes;
    const view = sftView(d);
    sections.push(
      `<h2>Checkpoint beside its base</h2><p>Evaluation run <code>${esc(cmp.evalRunId)}</code> (<code>npm run pau -- report ${esc(cmp.evalRunId)}</code>): ${e.checkpoint} SFT + ${e.base} base episodes, ${e.failed} failed, ${e.judged} judged by ${esc(cmp.judgeModel ?? '(none)')}; failed and unjudged episodes count as score 1 / code match 0; 95 % bootstrap intervals over methods; differences paired by method (wins / ties / losses of SFT). ${esc(POWER_TEXT)}</p>` +
        (cmp.gate ? `<p class="${cmp.gate.moved ? 'ok' : 'warn'}">Gate: ${esc(gateLine(cmp.gate))}</p>` : '') +
        (d.judgeCard ? `<p>${esc(cardTitle(d.judgeCard))}</p>` : '') +
        (view.withheld ? `<p class="withheld">${esc(view.withheld)}</p>` : '') +
        table(
          ['setting', 'metric', `SFT ${cmp.checkpointModel}`, `base ${cmp.baseModel}`, 'SFT - base (paired)', ...POWER_HEADERS],
          shownSftRows(cmp, view).map((r) => {
            const est = (x: typeof r.checkpoint) =>
              x.mean === null ? '-' : `${x.mean.toFixed(3)} [${x.lo?.toFixed(3) ?? '-'}, ${x.hi?.toFixed(3) ?? '-'}] n=${x.n}`;
            return [
              r.setting,
              METRIC_LABEL[r.metric],
              est(r.checkpoint),
              est(r.base),
              `${fmtPaired(r.diff, isShare(r.metric))} n=${r.diff.n}${cmp.gate && !cmp.gate.moved ? ' (inconclusive: the policy did not move)' : ''}`,
              ...powerCells(r.diff, r.metric),
            ];
          }),
        ),
    );
  } else
    sections.push(
      `<h2>Checkpoint beside its base</h2><p>${d.evalRunId ? `No comparison recorded for ${esc(d.evalRunId)}.` : 'Not evaluated (--no-eval).'}</p>`,
    );
  if (d.error) sections.push(`<h2>Error</h2><pre>${esc(d.error)}</pre>`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>PAU SFT report ${esc(d.runId)}</title>
<style>${REPORT_STYLE}</style></head><body>
<h1>PAU SFT report</h1>
<p>Run <code>${esc(d.runId)}</code> (${esc(d.status)}): base <code>${esc(d.config.base)}</code> on data set <code>${esc(d.config.data)}</code>, max_length ${esc(d.config.maxLength ?? 'trainer default')}; generated ${esc(d.generatedAt)}.</p>
${sections.join('\n')}
</body></html>
`;
}
