// The report as one static HTML file: opens from disk without a server, no external assets (styles and
// plots inline; plots are hand-built SVG). Pure code.
import { NAMES_ANONYMISED_TEXT, namedReportView } from './nameFloor';
import {
  codeMatchRows,
  fmtEstimate,
  isShare,
  METRIC_LABEL,
  METRICS,
  metricShown,
  headlineRows,
  judgedOnlyRows,
  notScoredText,
  pairedRows,
  POWER_TEXT,
  settingLabel,
  type EpisodeRow,
  type GroupDelta,
  type RunSummary,
} from './summarize';
import { z } from 'zod';
import { documentSchema } from '../common/jsonDocument';
import { seededRandom } from './stats';
import { esc, PALETTE, REPORT_STYLE, table } from './html';
import { transcriptHref, transcriptsDirName } from './transcriptLinks';
import { calibrationSection, type ReportCalibration } from './calibrationSection';
import { contradictionSection } from './contradictionSummary';
import { toolCallSourceTable, type ToolCallSourceRow } from './toolCallSources';
import type { JudgeCardStatus } from '../judge/card';
import { cardMeasureLines } from '../judge/cardSummary';
import { cardCheckRows, cardTitle, comparedView, noJudgeText, reportView, selfJudgeText, tableView, type ReportView } from './judgeCardView';
import { intervalPlotSvg, modelLegend, settingScatterSvg } from './plots';
import { comparisonSection, type RunComparison } from './runComparison';

/** A run as the report shows it. */
export interface RunInfo {
  id: string;
  kind: string;
  status: string;
  config: unknown;
  workflowId: string | null;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface ReportDocument {
  runId: string;
  generatedAt: string;
  run: RunInfo | null;
  judgeModel: string | null;
  /** The judge is a small local model (not the paper's judge; the report says so). */
  judgeIsLocal?: boolean;
  otherJudgeModels: string[];
  summary: RunSummary;
  episodes: EpisodeRow[];
  /**
   * Another run beside this one: group deltas, and (documents built since) paired per-method differences and
   * movers; its judge's card decides, with this run's, what the comparison may show (judgeCardView.ts comparedView).
   */
  compare?: { runId: string; judgeModel: string | null; judgeCard?: JudgeCardStatus; deltas: GroupDelta[]; comparison?: RunComparison };
  /** The latest calibration run of the run's dataset split (controls independent of the judge). */
  calibration?: ReportCalibration;
  notes: string[];
  /**
   * What the report says about judge modes (withholdScoresByMode): methods whose scores are withheld, or that the
   * shown scores mix methods judged with and without a reference. Also among `notes`; the text headline prints these.
   */
  modeNotes?: string[];
  /** Per model: tool calls that were native, parsed from text, or unparsable (interactive episodes). */
  toolCallSources?: ToolCallSourceRow[];
  /**
   * The judge card of the report's judge and code writer (or why there is none). Absent in documents built
   * before judge cards: those are shown as they were.
   */
  judgeCard?: JudgeCardStatus;
}

/** Grouped bars: for each model x setting, the share of judged episodes at each score (and unparsable). */
export function scoreDistributionSvg(s: RunSummary): string {
  const dists = s.distribution;
  const cats = ['1', '2', '3', '4', '5', 'unparsable'] as const;
  const W = 640;
  const H = 260;
  const m = { l: 40, r: 10, t: 10, b: 40 };
  const pw = W - m.l - m.r;
  const ph = H - m.t - m.b;
  const groupW = pw / cats.length;
  const barW = Math.max(2, (groupW * 0.8) / Math.max(1, dists.length));
  const parts: string[] = [];
  for (let t = 0; t <= 4; t++) {
    const y = m.t + ph - (ph * t) / 4;
    parts.push(
      `<line x1="${m.l}" x2="${W - m.r}" y1="${y}" y2="${y}" stroke="#ddd"/><text x="${m.l - 4}" y="${y + 4}" text-anchor="end" font-size="10">${t * 25}%</text>`,
    );
  }
  cats.forEach((c, ci) => {
    parts.push(
      `<text x="${m.l + groupW * ci + groupW / 2}" y="${H - m.b + 16}" text-anchor="middle" font-size="11">${c === 'unparsable' ? 'unparsable' : `score ${c}`}</text>`,
    );
    dists.forEach((d, di) => {
      const total = Object.values(d.counts).reduce((a, b) => a + b, 0) || 1;
      const share = d.counts[c] / total;
      const h = ph * share;
      const x = m.l + groupW * ci + groupW * 0.1 + barW * di;
      parts.push(
        `<rect x="${x.toFixed(1)}" y="${(m.t + ph - h).toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}" fill="${PALETTE[di % PALETTE.length]}"><title>${esc(`${d.model} / ${d.setting}: ${d.counts[c]} of ${total}`)}</title></rect>`,
      );
    });
  });
  const legend = dists
    .map((d, di) => `<span class="key"><i style="background:${PALETTE[di % PALETTE.length]}"></i>${esc(d.model)} / ${esc(d.setting)}</span>`)
    .join(' ');
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="score distribution">${parts.join('')}</svg><div class="legend">${legend}</div>`;
}

/** Scatter: statement coverage (x) against description score (y), one dot per judged episode, jittered. */
export function coverageScatterSvg(rows: EpisodeRow[]): string {
  const W = 640;
  const H = 300;
  const m = { l: 40, r: 10, t: 10, b: 40 };
  const pw = W - m.l - m.r;
  const ph = H - m.t - m.b;
  const keys = [...new Set(rows.map((r) => `${r.model} / ${r.setting}`))].sort();
  const rand = seededRandom(7);
  const parts: string[] = [];
  for (let s = 1; s <= 5; s++) {
    const y = m.t + ph - (ph * (s - 0.5)) / 5;
    parts.push(
      `<line x1="${m.l}" x2="${W - m.r}" y1="${y}" y2="${y}" stroke="#eee"/><text x="${m.l - 4}" y="${y + 4}" text-anchor="end" font-size="10">${s}</text>`,
    );
  }
  for (let t = 0; t <= 4; t++) {
    const x = m.l + (pw * t) / 4;
    parts.push(
      `<line x1="${x}" x2="${x}" y1="${m.t}" y2="${m.t + ph}" stroke="#eee"/><text x="${x}" y="${H - m.b + 14}" text-anchor="middle" font-size="10">${t * 25}%</text>`,
    );
  }
  parts.push(`<text x="${m.l + pw / 2}" y="${H - 6}" text-anchor="middle" font-size="11">statement coverage</text>`);
  parts.push(`<text x="12" y="${m.t + ph / 2}" text-anchor="middle" font-size="11" transform="rotate(-90 12 ${m.t + ph / 2})">score</text>`);
  for (const r of rows) {
    if (r.score === null || r.statementCoverage === null) continue;
    const k = keys.indexOf(`${r.model} / ${r.setting}`);
    const x = m.l + pw * Math.min(1, Math.max(0, r.statementCoverage)) + (rand() - 0.5) * 6;
    const y = m.t + ph - (ph * (r.score - 0.5)) / 5 + (rand() - 0.5) * (ph / 5) * 0.6;
    parts.push(
      `<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="3" fill="${PALETTE[k % PALETTE.length]}" fill-opacity="0.7"><title>${esc(`${r.methodId} ${r.model} / ${r.setting}: score ${r.score}, coverage ${(100 * r.statementCoverage).toFixed(0)}%`)}</title></circle>`,
    );
  }
  const legend = keys.map((k, i) => `<span class="key"><i style="background:${PALETTE[i % PALETTE.length]}"></i>${esc(k)}</span>`).join(' ');
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="coverage against score">${parts.join('')}</svg><div class="legend">${legend}</div>`;
}

const pct = (x: number | null) => (x === null ? '-' : `${(100 * x).toFixed(1)}%`);
const num = (x: number | null, d = 2) => (x === null ? '-' : x.toFixed(d));

/** The judge card at the top of the report: who judged and wrote code, each check against its threshold. */
export function judgeCardSection(doc: Pick<ReportDocument, 'judgeCard' | 'judgeModel' | 'runId'>, view: ReportView): string {
  if (doc.judgeModel === null) return `<div class="card"><h2>No judge</h2><p>${esc(noJudgeText(doc.runId))}.</p></div>`;
  const status = doc.judgeCard;
  if (!status) return '<div class="card"><p>Judge card: none attached to this report (built before judge cards).</p></div>';
  const ok = status.status === 'qualified' && status.card.coderQualified;
  const title =
    status.status === 'missing'
      ? `<h2>Judge card</h2><p>None yet for judge <code>${esc(status.judgeModel)}</code> with code writer <code>${esc(status.coderModel)}</code>.</p>`
      : `<h2>Judge card</h2><p>${esc(cardTitle(status).replace(/^judge card: /, ''))}</p>`;
  const body =
    status.status === 'missing'
      ? `<p>No card: compute it with <code>${esc(status.command)}</code>.</p>`
      : table(['check', 'model', 'value', 'needs', 'pass'], cardCheckRows(status.card)) +
        `<ul>${cardMeasureLines(status.card)
          .map((l) => `<li>${esc(l)}</li>`)
          .join('')}</ul>`;
  // Withheld scores are explained once, where the headline would be; code match withheld beside shown scores, here.
  const withheld = view.withheld && view.scores ? `<p class="withheld">${esc(view.withheld)}</p>` : '';
  return `<div class="card ${ok ? 'ok' : 'bad'}">${title}${body}${withheld}</div>`;
}

export function renderHtml(doc: ReportDocument): string {
  const s = doc.summary;
  const { view, floor } = namedReportView(doc);
  const tv = tableView(view);
  const head = headlineRows(s, tv);
  const judgedOnly = judgedOnlyRows(s, tv);
  const sections: string[] = [];
  const floorNote =
    view.codeMatch && view.emptyFloor !== null
      ? ` "Over empty floor": code match minus the code match of an empty description (${esc(floor.label)}, ${(100 * view.emptyFloor).toFixed(1)}%): what the description added.`
      : view.codeMatch && floor.names === 'anonymised'
        ? ` ${esc(floor.label)}.`
        : '';
  if (view.scores) {
    sections.push(
      `<h2>Headline: model × setting</h2><p>All ended episodes: one that failed, was cancelled, was not judged or whose judgment was unparsable counts as score 1 (a failure) and code match 0 ("not scored" gives how many). Code match is over the held-out inputs the agent never observed (alike for both settings; the all-inputs figure is below). Means with 95% bootstrap intervals resampling methods (not episodes). n = judged / episodes. Fail = score ≤ 2.${floorNote}</p>${table(head.headers, head.rows)}`,
    );
  } else {
    const marked = headlineRows(s, { scores: true, codeMatch: view.codeMatch, emptyFloor: view.emptyFloor });
    sections.push(
      `<h2>Judge-free measures: model × setting</h2>${view.withheld ? `<p class="withheld">${esc(view.withheld)}</p>` : ''}<p>What needs no judge model: mean calls, coverage of the original by the observed inputs${view.codeMatch ? ', code match over the held-out inputs the agent never observed (the code writer qualified)' : ''}, how episodes ended. All ended episodes counted; 95% bootstrap intervals resampling methods.${floorNote}</p>${table(head.headers, head.rows)}` +
        // No judge, no score row: only a judge's scores are kept (folded away, marked) when its card withholds them.
        (view.judged
          ? `<details><summary>Scores from the unqualified judge (not measurements)</summary><p class="withheld">Not measurements: these come from a judge without a passing card (see the judge card above).</p>${table(marked.headers, marked.rows)}</details>`
          : ''),
    );
  }
  {
    const plots = [
      view.scores ? intervalPlotSvg(s.groups, 'score', `score (1-5)${view.forcedBanner ? ' — unqualified judge' : ''}`) : '',
      view.codeMatch
        ? intervalPlotSvg(
            s.groups,
            'codeMatchUnobserved',
            'code match, unseen held-out inputs',
            view.emptyFloor !== null ? { value: view.emptyFloor, label: `empty-description floor ${(100 * view.emptyFloor).toFixed(0)}%` } : undefined,
          )
        : '',
      !view.scores ? intervalPlotSvg(s.groups, 'statementCoverage', 'statement coverage') : '',
    ].filter(Boolean);
    const scatter = [
      view.scores ? settingScatterSvg(doc.episodes, 'score', 'score (1-5)') : null,
      view.codeMatch ? settingScatterSvg(doc.episodes, 'codeMatchUnobserved', 'code match (unseen)') : null,
    ].filter((x): x is string => x !== null);
    sections.push(
      `<h2>At a glance</h2><div class="plots">${plots.join('')}</div>${modelLegend(s.groups.map((g) => g.model))}` +
        (scatter.length > 0
          ? `<h3>Interactive against in-context, per method</h3><p>One point per method and model (the mean over its samples, counted as in the headline); above the dashed diagonal, the model did better by experimenting than from the examples.</p><div class="plots">${scatter.join('')}</div>${modelLegend(
              doc.episodes.map((e) => e.model),
              'one point per method; dashed: interactive = in-context',
            )}`
          : ''),
    );
  }
  if (view.codeMatch) {
    const cm = codeMatchRows(s);
    sections.push(
      `<h3>Code match: unseen vs all held-out inputs</h3><p>All inputs also counts held-out inputs the agent observed itself (interactive agents often call 0, 1, -1 or ''; in-context examples are never held-out inputs), so it favours the interactive setting and a description that merely tabulates what was observed. "Held-out inputs unseen": counted inputs the agent never observed, of all counted, over judged episodes.</p>${table(cm.headers, cm.rows)}`,
    );
  }
  if (view.scores || view.codeMatch) {
    sections.push(
      `<h3>Judged episodes only</h3><p>The same groups over the episodes the judge scored (biased upward when failures are left out).</p>${table(judgedOnly.headers, judgedOnly.rows)}`,
    );
  }
  if (doc.compare) {
    const cv = comparedView(view, reportView(doc.compare), doc.compare.runId);
    const rows = doc.compare.deltas
      .filter((d) => metricShown(cv, d.metric))
      .map((d) => [
        d.model,
        d.setting,
        METRIC_LABEL[d.metric],
        num(d.current, 3),
        num(d.previous, 3),
        d.delta === null ? '-' : `${d.delta >= 0 ? '+' : ''}${d.delta.toFixed(3)}`,
      ]);
    sections.push(
      `<h2>Compared with ${esc(doc.compare.runId)}</h2>` +
        (cv.withheld ? `<p class="withheld">${esc(cv.withheld)}</p>` : '') +
        (doc.compare.comparison ? comparisonSection(doc.runId, doc.compare.runId, doc.compare.comparison, cv) : '') +
        `<h3>Group means</h3><p>This run minus run ${esc(doc.compare.runId)} (judge ${esc(doc.compare.judgeModel ?? 'none')}).</p>${table(['model', 'setting', 'metric', 'this run', 'other run', 'delta'], rows)}`,
    );
  }
  if (s.paired.length + s.modelPairs.length > 0) {
    const t = pairedRows(s, tv);
    if (t.tooFew) sections.push(`<h2>Paired differences per method</h2><p>${esc(t.tooFew)}.</p>`);
    else if (t.rows.length > 0)
      sections.push(
        `<h2>Paired differences per method</h2><p>Interactive minus in-context per model, and model minus model per setting: per method, the mean over its samples on each side (all episodes counted, as in the headline), then the mean of the per-method differences with a 95% bootstrap interval over methods. wins/ties/losses: methods where the first side is better / equal / worse (for the fail rate, lower is better).${t.leftOut > 0 ? ` ${t.leftOut} comparisons over too few methods are left out.` : ''} ${esc(POWER_TEXT)}</p>${table(t.headers, t.rows)}`,
      );
  }
  if (doc.calibration) sections.push(calibrationSection(doc.calibration));
  const contradictionsHtml = contradictionSection(doc.episodes);
  if (contradictionsHtml) sections.push(contradictionsHtml);
  if (doc.toolCallSources && doc.toolCallSources.length > 0) {
    const t = toolCallSourceTable(doc.toolCallSources);
    sections.push(
      `<h2>Where tool calls came from</h2><p>Interactive episodes: calls made through native <code>tool_calls</code>, calls parsed from the message text (JSON or the text protocol), and messages that tried to call a tool but could not be read.</p>${table(t.headers, t.rows)}`,
    );
  }
  const unqualified = !view.judged
    ? ' (no judge)'
    : view.scores
      ? view.forcedBanner
        ? ' (unqualified judge, forced)'
        : ''
      : ' (unqualified judge: not measurements)';
  if (view.scores) {
    sections.push(`<h2>Score distribution${unqualified}</h2>${scoreDistributionSvg(s)}`);
    sections.push(`<h2>Coverage against score${unqualified}</h2>${coverageScatterSvg(doc.episodes)}`);
  }
  {
    const shown = METRICS.filter((m) => metricShown(view, m));
    const rows = s.bySource.map((g) => [
      g.source ?? '',
      g.model,
      settingLabel(g),
      `${g.judged}/${g.episodes}`,
      notScoredText(g),
      ...shown.map((m) => fmtEstimate(g.metrics[m], isShare(m))),
    ]);
    sections.push(
      `<h2>Per source</h2><p>Counted as in the headline.</p>${table(['source', 'model', 'setting', 'n', 'not scored', ...shown.map((m) => METRIC_LABEL[m])], rows)}`,
    );
  }
  {
    const rows = s.diagnostics.map((d) => [
      d.model,
      d.setting,
      String(d.failures),
      `${d.contradictsObserved}`,
      pct(d.failuresContradicting),
      d.controlChecked ? `${pct(d.controlAgreement)} of ${d.controlChecked}` : '-',
      `${d.underExplored}`,
      pct(d.failuresUnderExplored),
      num(d.meanCalls, 1),
      num(d.meanRepeatedCalls, 1),
      num(d.meanErrors, 1),
      num(d.meanAgentErrors, 1),
      String(d.noCode),
      String(d.codeFailed),
      String(d.unparsable),
    ]);
    sections.push(
      `<h2>Diagnostics${unqualified}</h2><p>"Contradicts observed": the code written from the final description disagrees with an example the agent had already seen (calls that returned a value). "Control agrees": the same check on code written from the gold description, which is right by definition — the share of episodes where it agrees with every observation; a low share means the check is noisy (coder mistakes, behaviour no description states) and "contradicts observed" overstates real contradictions. "Under-explored": coverage below the threshold. "Code failed": the code did not compile or lacked the entry point (code match 0).</p>` +
        table(
          [
            'model',
            'setting',
            'failures',
            'contradicts observed',
            'of failures',
            'control agrees',
            'under-explored',
            'of failures',
            'calls',
            'repeated',
            'errors',
            'agent errors',
            'no code',
            'code failed',
            'unparsable',
          ],
          rows,
        ),
    );
  }
  {
    const rows = s.groups.map((g) => [
      g.model,
      g.setting,
      String(g.episodes),
      String(g.failedEpisodes),
      String(g.tokensIn),
      String(g.tokensOut),
      `$${g.costUsd.toFixed(4)}`,
    ]);
    rows.push(['total', '', String(s.totals.episodes), '', String(s.totals.tokensIn), String(s.totals.tokensOut), `$${s.totals.costUsd.toFixed(4)}`]);
    sections.push(`<h2>Tokens and cost (agents)</h2>${table(['model', 'setting', 'episodes', 'failed', 'tokens in', 'tokens out', 'cost'], rows)}`);
  }
  {
    const rows = doc.episodes.map((e) => [
      esc(e.methodId),
      esc(e.model),
      esc(e.setting),
      String(e.sample),
      esc(e.status),
      e.score === null ? (e.unparsable ? 'unparsable' : '-') : String(e.score),
      pct(e.codeMatchUnobserved ?? null),
      pct(e.codeMatch),
      pct(e.statementCoverage),
      pct(e.branchCoverage),
      esc(e.diagnostics?.contradictsObserved ? 'contradicts' : ''),
      e.uiLink ? `<a href="${esc(e.uiLink)}">${esc(e.workflowId)}</a>` : '-',
      `<a href="${esc(transcriptHref(doc.runId, e.episodeId))}">transcript</a>`,
    ]);
    sections.push(
      `<h2>Episodes</h2><p>Each transcript (what the agent saw and did, the judge's verdict, the generated code and where it disagreed) is a page in <code>${esc(transcriptsDirName(doc.runId))}/</code> beside this file, written with it by <code>npm run pau -- report</code>; <code>npm run pau -- runs show RUN --episode ID</code> prints one.</p><details><summary>${doc.episodes.length} episodes (click to open)</summary>${table(['method', 'model', 'setting', 'sample', 'status', `score${unqualified}`, 'code match (unseen)', 'code match (all)', 'stmt', 'branch', 'diagnosis', 'Temporal UI', 'transcript'], rows, [0, 1, 2, 4, 10, 11, 12])}</details>`,
    );
  }
  const notes = doc.notes.map((n) => `<li>${esc(n)}</li>`).join('');
  const selfJudge = selfJudgeText(doc.run?.config);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>PAU report ${esc(doc.runId)}</title>
<style>${REPORT_STYLE}</style></head><body>
${view.forcedBanner ? `<div class="banner">${esc(view.forcedBanner)}</div>` : ''}
<h1>PAU benchmark report</h1>
<p>Run <code>${esc(doc.runId)}</code>${doc.run ? ` (${esc(doc.run.kind)}, ${esc(doc.run.status)})` : ''}; judge model <code>${esc(doc.judgeModel ?? 'none')}</code>${doc.otherJudgeModels.length ? `; also judged by ${doc.otherJudgeModels.map((m) => `<code>${esc(m)}</code>`).join(', ')}` : ''}; generated ${esc(doc.generatedAt)}.</p>
${selfJudge ? `<p class="withheld">${esc(selfJudge)}</p>` : ''}
${floor.names === 'anonymised' ? `<p>${esc(NAMES_ANONYMISED_TEXT)}</p>` : ''}
${judgeCardSection(doc, view)}
${notes ? `<ul>${notes}</ul>` : ''}
${sections.join('\n')}
</body></html>
`;
}

/** reports.json as stored: the document (plus what the writer adds, e.g. regressions). */
export const reportDocumentSchema = documentSchema<ReportDocument>({
  runId: z.string(),
  generatedAt: z.string(),
  judgeModel: z.string().nullable(),
  summary: z.looseObject({}),
  episodes: z.array(z.unknown()),
  notes: z.array(z.string()),
});
