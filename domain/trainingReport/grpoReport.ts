// The GRPO run report (kind 'grpo' in the reports table: produced at the run's end and by `pau grpo report
// RUN --compare`): learning curves per epoch (reward, critic reward, KL, validation score and code match with
// the base as a line), what each update left out (not as served, too long, cut turns), the reward
// distribution per group, and the best and worst groups' trajectories with their step rewards; and its
// terminal text; the critic's card first (criticCardView.ts). Pure: HTML and text from data the produceReport activity loads.
import { esc, PALETTE, REPORT_STYLE, table } from '../report/html';
import { fmtEstimate, fmtPaired, isShare, METRIC_LABEL, metricShown, POWER_HEADERS, POWER_TEXT, powerCells, powerSuffix } from '../report/summarize';
import type { JudgeCardStatus } from '../judge/card';
import { type ReportView, reportView } from '../report/judgeCardView';
import { judgeCardLines } from '../report/headline';
import { judgeCardSection } from '../report/renderHtml';
import type { PairedEstimate } from '../report/stats';
import type { GrpoConfig, GrpoEpochFigures } from '../training/grpo';
import { GRPO_EVAL_METRICS, grpoEvalLine, type GrpoEvalMetric, servedByText } from '../training/grpoEval';
import { countsFigures, countsLine, sumCounts, type TrainingCounts } from './trainingCounts';
import type { RunCriticStatus } from '../training/onPolicyCard';
import { criticCardSection, criticCardText } from './criticCardView';
import { gateLine, type PolicyMovedGate } from '../report/policyMoved';

export interface GrpoTrajectoryStep {
  idx: number;
  /** The calls the step made (as the critic saw them), or the assistant's text when it made none. */
  text: string;
  criticReward: number | null;
  rationale: string | null;
}

export interface GrpoTrajectory {
  episodeId: string;
  sample: number;
  reward: number | null;
  score: number | null;
  /** On the held-out inputs the agent never saw (the reward's). */
  codeMatchUnobserved: number | null;
  finalDescription: string | null;
  steps: GrpoTrajectoryStep[];
}

export interface GrpoGroupExample {
  label: 'best' | 'worst';
  epoch: number;
  methodId: string;
  meanReward: number | null;
  rollouts: GrpoTrajectory[];
}

/**
 * This run's checkpoint against another run's (another reward mode) at the same epoch, on the validation
 * methods both evaluated, paired by method, every ended episode counted (`grpo report RUN --compare OTHER`).
 */
export interface GrpoRunComparison {
  otherRunId: string;
  otherReward: string;
  epoch: number;
  evalRunIds: [string, string];
  paired: Record<GrpoEvalMetric, PairedEstimate>;
  /** Each side's gate (this run's checkpoint, the other's); absent when neither was measured. */
  gates?: [PolicyMovedGate | null, PolicyMovedGate | null];
}

/** An epoch cell marked when its checkpoint did not pass the gate: its differences are inconclusive, not null. */
function gatedEpoch(epoch: number, gates: readonly (PolicyMovedGate | null | undefined)[]): string {
  const still = gates.some((g) => g && !g.moved);
  return still ? `${epoch + 1} (inconclusive: the policy did not move)` : String(epoch + 1);
}

export interface GrpoReportInput {
  runId: string;
  status: string;
  config: GrpoConfig;
  epochs: GrpoEpochFigures[];
  examples: GrpoGroupExample[];
  generatedAt: string;
  comparisons?: GrpoRunComparison[];
  /** Other runs asked for that could not be compared, and why. */
  comparisonNotes?: string[];
  /** The critic's card (absent in reports stored before critic cards). */
  criticCard?: RunCriticStatus;
  /** The judge's card: it decides whether the validation's scores and code match are shown (judgeCardView.ts). */
  judgeCard?: JudgeCardStatus;
}

/** What the report may show of the validation runs: the benchmark report's rule for the run's judge. */
export function grpoView(r: Pick<GrpoReportInput, 'config' | 'judgeCard'>): ReportView {
  return reportView({ judgeModel: r.config.judgeModel, judgeCard: r.judgeCard });
}

/** The sentence under the judge card when it withholds validation figures: rewards stay, as the signal trained on. */
function withheldText(view: ReportView): string | null {
  if (!view.withheld) return null;
  return `${view.withheld} Validation figures from this judge are withheld; rewards and rollout scores are shown as the training signal the updates used, not as measurements.`;
}

const fmt = (x: number | null | undefined, d = 3) => (x === null || x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(d));

interface Series {
  name: string;
  values: (number | null)[];
  dashed?: boolean;
}

/** A small line chart over epochs 1..n; null points are skipped. */
export function lineChartSvg(title: string, series: Series[], n: number): string {
  const W = 360;
  const H = 200;
  const m = { l: 44, r: 10, t: 24, b: 28 };
  const vals = series.flatMap((s) => s.values).filter((v): v is number => v !== null && Number.isFinite(v));
  if (vals.length === 0) return `<div class="chart"><b>${esc(title)}</b>: no data yet</div>`;
  let lo = Math.min(...vals);
  let hi = Math.max(...vals);
  if (hi - lo < 1e-9) {
    lo -= 0.5;
    hi += 0.5;
  }
  const x = (i: number) => m.l + (n <= 1 ? (W - m.l - m.r) / 2 : (i * (W - m.l - m.r)) / (n - 1));
  const y = (v: number) => m.t + (H - m.t - m.b) * (1 - (v - lo) / (hi - lo));
  const parts: string[] = [`<text x="${W / 2}" y="14" text-anchor="middle" font-size="12">${esc(title)}</text>`];
  parts.push(
    `<line x1="${m.l}" y1="${H - m.b}" x2="${W - m.r}" y2="${H - m.b}" stroke="#999"/><line x1="${m.l}" y1="${m.t}" x2="${m.l}" y2="${H - m.b}" stroke="#999"/>`,
  );
  for (const v of [lo, (lo + hi) / 2, hi]) parts.push(`<text x="${m.l - 4}" y="${y(v) + 4}" text-anchor="end" font-size="10">${v.toFixed(2)}</text>`);
  for (let i = 0; i < n; i++) parts.push(`<text x="${x(i)}" y="${H - m.b + 14}" text-anchor="middle" font-size="10">${i + 1}</text>`);
  series.forEach((s, k) => {
    const color = PALETTE[k % PALETTE.length];
    const pts = s.values.flatMap((v, i) => (v === null || !Number.isFinite(v) ? [] : [[x(i), y(v)] as const]));
    if (pts.length > 1)
      parts.push(
        `<polyline fill="none" stroke="${color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="5,4"' : ''} points="${pts.map(([a, b]) => `${a.toFixed(1)},${b.toFixed(1)}`).join(' ')}"/>`,
      );
    for (const [a, b] of pts) parts.push(`<circle cx="${a.toFixed(1)}" cy="${b.toFixed(1)}" r="3" fill="${color}"/>`);
  });
  const legend = series.map((s, k) => `<span class="key"><i style="background:${PALETTE[k % PALETTE.length]}"></i>${esc(s.name)}</span>`).join('');
  return `<div class="chart" style="display:inline-block;margin-right:1em"><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(title)}">${parts.join('')}</svg><div class="legend">${legend}</div></div>`;
}

/** Each group's rollout rewards as dots on one row per (epoch, method). */
export function rewardStripSvg(epochs: readonly GrpoEpochFigures[]): string {
  const rows = epochs.flatMap((e) => e.groups.map((g) => ({ label: `e${e.epoch + 1} ${g.methodId}`, rewards: g.rewards })));
  const vals = rows.flatMap((r) => r.rewards).filter((v): v is number => v !== null);
  if (vals.length === 0) return '<p>No judged rollouts yet.</p>';
  const lo = Math.min(0, ...vals);
  const hi = Math.max(6, ...vals);
  const W = 640;
  const rowH = 18;
  const l = 260;
  const H = rows.length * rowH + 30;
  const x = (v: number) => l + ((v - lo) / (hi - lo)) * (W - l - 10);
  const parts: string[] = [];
  rows.forEach((r, i) => {
    const cy = 10 + i * rowH + rowH / 2;
    parts.push(`<text x="${l - 6}" y="${cy + 4}" text-anchor="end" font-size="10">${esc(r.label.slice(0, 48))}</text>`);
    parts.push(`<line x1="${l}" y1="${cy}" x2="${W - 10}" y2="${cy}" stroke="#eee"/>`);
    for (const v of r.rewards) parts.push(v === null ? '' : `<circle cx="${x(v).toFixed(1)}" cy="${cy}" r="4" fill="${PALETTE[0]}" fill-opacity="0.6"/>`);
  });
  for (let v = Math.ceil(lo); v <= hi; v++) parts.push(`<text x="${x(v)}" y="${H - 6}" text-anchor="middle" font-size="10">${v}</text>`);
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="reward per group">${parts.join('')}</svg>`;
}

/** The best and worst groups over all epochs by mean outcome reward (ties: the earlier). */
export function bestAndWorstGroups(
  epochs: readonly GrpoEpochFigures[],
): { label: 'best' | 'worst'; epoch: number; methodId: string; meanReward: number | null }[] {
  const all = epochs.flatMap((e) =>
    e.groups.map((g) => {
      const v = g.rewards.filter((r): r is number => r !== null);
      return { epoch: e.epoch, methodId: g.methodId, meanReward: v.length ? v.reduce((a, b) => a + b, 0) / v.length : null };
    }),
  );
  const scored = all.filter((g) => g.meanReward !== null).sort((a, b) => b.meanReward! - a.meanReward!);
  if (scored.length === 0) return [];
  const best = scored[0]!;
  const worst = scored.at(-1)!;
  return scored.length === 1
    ? [{ label: 'best', ...best }]
    : [
        { label: 'best', ...best },
        { label: 'worst', ...worst },
      ];
}

function trajectoryHtml(t: GrpoTrajectory): string {
  const rows = t.steps.map((s) => [
    String(s.idx),
    esc(s.text),
    s.criticReward === null ? '-' : s.criticReward.toFixed(2),
    esc((s.rationale ?? '').slice(0, 300)),
  ]);
  return `<h4>rollout ${t.sample % 1000}: reward ${fmt(t.reward, 2)} (score ${fmt(t.score, 0)}, code match on unseen inputs ${fmt(t.codeMatchUnobserved, 2)})</h4>${table(['step', 'calls', 'critic reward', 'critic rationale'], rows, [1, 3])}<p><b>Final description:</b> ${esc(t.finalDescription ?? '(none)')}</p>`;
}

const pct = (x: number | null | undefined) => (x === null || x === undefined ? '-' : `${Math.round(100 * x)} %`);

/**
 * Each evaluation is a benchmark run (its own report: `pau report <id>`), summarised like one: every ended
 * episode counted, 95 % intervals over methods, the checkpoint paired against the base by method; and, with
 * --compare, against the checkpoints of other runs (other reward modes) at the same epoch; each paired
 * difference one row with its power (σ_d, MDE at 80 %, the methods the paper's effect needs).
 */
function validationSection(es: GrpoEpochFigures[], comparisons: GrpoRunComparison[], notes: string[], view: ReportView): string {
  const evals = es.filter((e) => e.eval);
  if (evals.length === 0) return '<h2>Validation (benchmark runs)</h2><p>No evaluation yet.</p>';
  const rows = evals.map((e) => {
    const v = e.eval!;
    const c = v.checkpoint;
    const b = v.base;
    const est = (x: typeof c, m: GrpoEvalMetric, p = false) =>
      !metricShown(view, m) ? 'withheld' : x.estimates ? fmtEstimate(x.estimates[m], p) : m === 'score' ? fmt(x.meanScore) : '-';
    return [
      String(e.epoch + 1),
      `<code>${esc(v.runId)}</code> (<code>npm run pau -- report ${esc(v.runId)}</code>)`,
      `${c.episodes} / ${b.episodes}${v.counting === 'all' ? '' : ' (judged only)'}`,
      `${est(c, 'score')} / ${est(b, 'score')}`,
      `${est(c, 'codeMatchUnobserved', true)} / ${est(b, 'codeMatchUnobserved', true)}`,
      `${pct(c.described)} / ${pct(b.described)}`,
      `${pct(c.repeatedCallRate)} / ${pct(b.repeatedCallRate)}`,
      `${fmt(c.meanCalls, 1)} / ${fmt(b.meanCalls, 1)}`,
      `${c.failed + (c.unjudged ?? 0)} / ${b.failed + (b.unjudged ?? 0)}`,
      servedByText(v.stacks) ?? '-',
      v.gate ? esc(gateLine(v.gate)) : 'not measured',
    ];
  });
  let html =
    '<h2>Validation (benchmark runs)</h2><p>Every ended episode counted (a failed or unjudged one scores 1, code match 0), 95 % intervals from resampling methods; the paired differences below the table.</p>' +
    table(
      [
        'epoch',
        'benchmark run',
        'episodes ckpt / base',
        'score ckpt / base',
        'code match (unseen) ckpt / base',
        'ended with a description ckpt / base',
        'repeated calls ckpt / base',
        'calls per episode ckpt / base',
        'failed or unjudged ckpt / base',
        'served by ckpt / base',
        'did the policy move? (KL to the base, transcripts departing)',
      ],
      rows,
      [1],
    );
  const paired = evals.filter((e) => e.eval!.paired);
  if (paired.length > 0)
    html +=
      `<h3>Checkpoint minus base, paired by method</h3><p>Per validation method, the checkpoint's mean minus the base's; the mean of those differences with a 95 % interval over methods and wins / ties / losses of the checkpoint (for the fail rate, lower is better). ${esc(POWER_TEXT)}</p>` +
      table(
        ['epoch', 'metric', 'ckpt - base [95% CI] wins/ties/losses', 'methods', 'unpaired', ...POWER_HEADERS],
        paired.flatMap((e) => pairedPowerRows([gatedEpoch(e.epoch, [e.eval!.gate])], e.eval!.paired!, view)),
      );
  if (comparisons.length > 0 || notes.length > 0) {
    html +=
      `<h3>Against other reward modes</h3><p>This run's checkpoint minus the other run's at the same epoch, paired by validation method. ${esc(POWER_TEXT)}</p>` +
      table(
        ['epoch', 'other run (reward)', 'benchmark runs', 'metric', 'this run - other [95% CI] wins/ties/losses', 'methods', 'unpaired', ...POWER_HEADERS],
        comparisons.flatMap((x) =>
          pairedPowerRows(
            [
              gatedEpoch(x.epoch, x.gates ?? []),
              `<code>${esc(x.otherRunId)}</code> (${esc(x.otherReward)})`,
              `${esc(x.evalRunIds[0])} vs ${esc(x.evalRunIds[1])}`,
            ],
            x.paired,
            view,
          ),
        ),
        [1, 2],
      ) +
      notes.map((n) => `<p>${esc(n)}</p>`).join('');
  }
  return html;
}

/** One row per GRPO evaluation metric of a paired record: `lead` cells, the metric, the difference, methods, unpaired and its power cells. */
function pairedPowerRows(lead: string[], paired: Record<GrpoEvalMetric, PairedEstimate>, view: ReportView): string[][] {
  return GRPO_EVAL_METRICS.filter((m) => metricShown(view, m)).map((m) => [
    ...lead,
    METRIC_LABEL[m],
    fmtPaired(paired[m], isShare(m)),
    String(paired[m].n),
    String(paired[m].unpaired),
    ...powerCells(paired[m], m),
  ]);
}

/** What an epoch's update was handed and left out (issue 23's counts); not-as-served unknown before the count. */
export function epochCounts(e: Pick<GrpoEpochFigures, 'prepared' | 'update'>, maxLength: number | undefined): TrainingCounts | null {
  if (!e.prepared) return null;
  return {
    given: e.prepared.rollouts,
    notAsServed: e.prepared.skipped.not_as_served ?? 0,
    droppedTooLong: e.update.droppedTooLong ?? null,
    longestTokens: e.update.longestTokens ?? null,
    lengthCutMasked: e.update.lengthCutMasked ?? null,
    maxLength: maxLength ?? null,
  };
}

/** The run's counts over its epochs (null when no epoch has them: a run recorded before the count). */
export function runCounts(r: Pick<GrpoReportInput, 'epochs' | 'config'>): TrainingCounts | null {
  const per = r.epochs.map((e) => epochCounts(e, r.config.maxLength)).filter((c): c is TrainingCounts => c !== null);
  return sumCounts(per);
}

const sharePct = (x: number | null) => (x === null ? '-' : `${(100 * x).toFixed(1)} %`);

/** The per-epoch table's cell: not as served / too long (share) / cut turns masked. */
function countsCell(e: GrpoEpochFigures, maxLength: number | undefined): string {
  const c = epochCounts(e, maxLength);
  if (!c) return `- / ${e.update.droppedTooLong ?? '-'} / ${e.update.lengthCutMasked ?? '-'}`;
  const f = countsFigures(c);
  return `${c.notAsServed} (${sharePct(f.notAsServedShare)}) / ${c.droppedTooLong ?? '-'} (${sharePct(f.tooLongShare)}) / ${c.lengthCutMasked ?? '-'}`;
}

/** The per-epoch table's cell: tokens trained as sampled / re-tokenised; the sampler–trainer gap; '-' for runs before the count. */
function samplerCell(u: GrpoEpochFigures['update']): string {
  if (u.retokenisedTokens == null) return '-';
  const gap = u.samplerGap != null ? `; ${fmt(u.samplerGap, 4)} (${fmt(100 * (u.samplerOutsideClip ?? 0), 1)} %)` : '';
  return `${u.sampledTokens ?? 0} / ${u.retokenisedTokens}${gap}`;
}

/** Policy failures (with reasons), unjudged rollouts and skipped groups of an epoch; '-' for runs before the count. */
export function outcomeCounts(e: Pick<GrpoEpochFigures, 'outcomes'>): string {
  const o = e.outcomes;
  if (!o) return '-';
  const why = (r: Partial<Record<string, number>>) => {
    const parts = Object.entries(r).map(([k, v]) => `${k} ${v}`);
    return parts.length ? ` (${parts.join(', ')})` : '';
  };
  return `${o.policyFailures}${why(o.policyFailureReasons)} / ${o.unjudgedRollouts}${why(o.unjudgedReasons)} / ${o.skippedGroups}`;
}

export function renderGrpoReport(r: GrpoReportInput): string {
  const es = r.epochs;
  const n = Math.max(es.length, 1);
  const c = r.config;
  const view = grpoView(r);
  const withheld = withheldText(view);
  const sections: string[] = [
    criticCardSection(r.criticCard),
    judgeCardSection({ judgeCard: r.judgeCard, judgeModel: c.judgeModel, runId: r.runId }, view) + (withheld ? `<p class="withheld">${esc(withheld)}</p>` : ''),
  ];
  const evalOf = (e: GrpoEpochFigures, who: 'checkpoint' | 'base', k: 'meanScore' | 'meanCodeMatch') => e.eval?.[who][k] ?? null;
  const shownCell = (shown: boolean, e: GrpoEpochFigures, k: 'meanScore' | 'meanCodeMatch') =>
    !e.eval ? '-' : shown ? `${fmt(evalOf(e, 'checkpoint', k))} / ${fmt(evalOf(e, 'base', k))}` : 'withheld';
  sections.push(
    '<h2>Learning curves (per epoch)</h2>' +
      lineChartSvg('rollout reward (outcome)', [{ name: 'mean outcome reward', values: es.map((e) => e.meanReward) }], n) +
      lineChartSvg('critic step reward', [{ name: 'mean critic reward (0-1)', values: es.map((e) => e.meanCriticReward) }], n) +
      lineChartSvg('KL to the base', [{ name: 'mean KL (k3)', values: es.map((e) => e.update.meanKl) }], n) +
      (view.scores
        ? lineChartSvg(
            'validation score (1-5)',
            [
              { name: 'checkpoint', values: es.map((e) => evalOf(e, 'checkpoint', 'meanScore')) },
              { name: `base ${c.base}`, values: es.map((e) => evalOf(e, 'base', 'meanScore')), dashed: true },
            ],
            n,
          )
        : '') +
      (view.codeMatch
        ? lineChartSvg(
            'validation code match',
            [
              { name: 'checkpoint', values: es.map((e) => evalOf(e, 'checkpoint', 'meanCodeMatch')) },
              { name: `base ${c.base}`, values: es.map((e) => evalOf(e, 'base', 'meanCodeMatch')), dashed: true },
            ],
            n,
          )
        : ''),
  );
  sections.push(
    '<h2>Per epoch</h2>' +
      table(
        [
          'epoch',
          'policy',
          'rollouts (failed)',
          'policy failures (minimum reward) / unjudged / groups skipped',
          'reward',
          'score',
          "code match unseen (the reward's) / all",
          'critic reward (rated steps)',
          'critic unparsable; rollouts unrated (outcome only), by reason',
          'update steps',
          'not as served (left out) / too long (dropped) / cut turns masked',
          'tokens trained as sampled / re-tokenised; sampler–trainer |Δ log-prob| (outside clip)',
          'KL',
          'clip frac',
          'loss',
          'tok/s',
          'val score ckpt / base',
          'val code match ckpt / base',
          'val calls ckpt / base',
          'rollouts / critic / update / export / eval (s)',
        ],
        es.map((e) => [
          String(e.epoch + 1),
          e.policyModel,
          `${e.rollouts} (${e.failedRollouts})`,
          outcomeCounts(e),
          fmt(e.meanReward),
          fmt(e.meanScore),
          `${fmt(e.meanCodeMatchUnobserved ?? null)} / ${fmt(e.meanCodeMatch)}`,
          `${fmt(e.meanCriticReward)} (${e.ratedSteps})`,
          (e.criticUnparsable === undefined ? '-' : `${e.criticUnparsable} (${fmt((e.criticUnparsableShare ?? 0) * 100, 0)} %)`) +
            (e.criticUnrated ? `; ${e.criticUnrated.rollouts} rollout(s) unrated: ${unratedReasons(e.criticUnrated)}` : ''),
          String(e.update.steps),
          countsCell(e, c.maxLength),
          samplerCell(e.update),
          fmt(e.update.meanKl, 5),
          fmt(e.update.meanClipFrac),
          fmt(e.update.finalLoss, 4),
          fmt(e.update.tokensPerS, 1),
          shownCell(view.scores, e, 'meanScore'),
          shownCell(view.codeMatch, e, 'meanCodeMatch'),
          e.eval ? `${fmt(e.eval.checkpoint.meanCalls, 1)} / ${fmt(e.eval.base.meanCalls, 1)}` : '-',
          [e.timing.rolloutsMs, e.timing.criticMs, e.timing.updateMs, e.timing.exportMs, e.timing.evalMs].map((ms) => Math.round(ms / 1000)).join(' / '),
        ]),
      ),
  );
  const counts = runCounts(r);
  sections.push(
    `<h2>Left out of training</h2><p>${esc(counts ? countsLine(counts, 'rollout') : 'not counted: this run was recorded before the counts (issue 23)')}</p>` +
      '<p>Not as served: a rollout whose model requests are not in the ledger as its transcript says is left out (never trained on a prompt that was not sent). Too long: a rollout longer than max_length is dropped, never cut (the update refuses to run when more than 1 % would be). Cut turns: turns cut at max_tokens train without the end-of-turn token the policy never sampled.</p>',
  );
  sections.push(validationSection(es, r.comparisons ?? [], r.comparisonNotes ?? [], view));
  sections.push(
    `<h2>Reward distribution per group</h2><p>Each dot is one rollout's outcome reward (judge score + ${c.codeMatchWeight} x code match on the unseen held-out inputs).</p>${rewardStripSvg(es)}`,
  );
  for (const g of r.examples) {
    sections.push(
      `<h2>The ${g.label} group: ${esc(g.methodId)}, epoch ${g.epoch + 1} (mean reward ${fmt(g.meanReward, 2)})</h2>${g.rollouts.map(trajectoryHtml).join('\n')}`,
    );
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>PAU GRPO report ${esc(r.runId)}</title>
<style>${REPORT_STYLE}</style></head><body>
<h1>PAU GRPO report</h1>
<p>Run <code>${esc(r.runId)}</code> (${esc(r.status)}): policy <code>${esc(c.base)}</code>, critic <code>${esc(c.critic)}</code>, judge <code>${esc(c.judgeModel)}</code>, reward <b>${esc(c.reward)}</b>; ${c.epochs} epochs x ${c.methodsPerEpoch} methods x ${c.group} rollouts on ${esc(c.dataset)}/${esc(c.split)}, temperature ${c.temperature}, budgets ${esc(JSON.stringify(c.budgets))}; generated ${esc(r.generatedAt)}. ${es.length} epoch(s) done.</p>
${sections.join('\n')}
</body></html>
`;
}

/** The reasons a critic left rollouts unrated, each with its count. */
function unratedReasons(u: NonNullable<GrpoEpochFigures['criticUnrated']>): string {
  return Object.entries(u.reasons)
    .map(([why, n]) => `${why} (${n})`)
    .join('; ');
}

/** What the update trained as sampled and as re-tokenised, and the sampler–trainer gap of the sampled tokens. */
export function samplerLine(u: GrpoEpochFigures['update']): string {
  const gap =
    u.samplerGap != null
      ? `; sampler–trainer gap: mean |Δ log-prob| ${u.samplerGap.toFixed(4)}, ${(100 * (u.samplerOutsideClip ?? 0)).toFixed(1)} % of tokens outside the clip range` +
        (u.tisCap != null ? `, truncated IS at ${u.tisCap}` : ', no IS correction')
      : u.sampledTokens
        ? '; sampler–trainer gap not measured (no update step ran, so no old log-probs were computed)'
        : '; no sampler log-probs recorded';
  return `tokens trained as sampled ${u.sampledTokens ?? 0}, re-tokenised ${u.retokenisedTokens}${gap}`;
}

/** One epoch's line as the terminal prints it (`grpo train` at the end, `grpo report`). */
export function grpoEpochLine(e: GrpoEpochFigures, maxLength: number | undefined, view?: ReportView): string {
  const c = epochCounts(e, maxLength);
  return (
    `epoch ${e.epoch + 1}: reward ${e.meanReward?.toFixed(3) ?? '-'}` +
    (e.outcomes ? `  policy failures / unjudged / groups skipped ${outcomeCounts(e)}` : '') +
    `  critic ${e.meanCriticReward?.toFixed(3) ?? '-'}` +
    (e.criticUnparsable !== undefined ? ` (${e.criticUnparsable} unparsable)` : '') +
    `  KL ${e.update.meanKl?.toFixed(5) ?? '-'}` +
    (e.update.outcomeTermAbs != null || e.update.stepTermAbs != null
      ? `  |A| outcome ${e.update.outcomeTermAbs?.toFixed(3) ?? '-'} step ${e.update.stepTermAbs?.toFixed(3) ?? '-'}`
      : '') +
    (e.update.zeroSpreadGroups != null
      ? `  reward spread ${e.update.rewardSpread?.toFixed(3) ?? '-'} (${Math.round(100 * e.update.zeroSpreadGroups)} % of groups none)`
      : '') +
    (e.update.allUnratedRollouts ? `  ${e.update.allUnratedRollouts} rollout(s) unrated by the critic (outcome only)` : '') +
    (e.update.retokenisedTokens != null ? `\n  ${samplerLine(e.update)}` : '') +
    (e.criticUnrated ? `\n  critic: ${e.criticUnrated.rollouts} rollout(s) unrated for a reason: ${unratedReasons(e.criticUnrated)}` : '') +
    (c
      ? `\n  ${countsLine(c, 'rollout')}`
      : e.update.droppedTooLong != null
        ? `  too long ${e.update.droppedTooLong}, cut turns ${e.update.lengthCutMasked ?? 0}`
        : '') +
    (e.eval ? `\n  ${grpoEvalLine(e.eval, view)}` : '') +
    (e.eval?.gate ? `\n  gate: ${gateLine(e.eval.gate)}` : '')
  );
}

/** The report as the terminal prints it: per epoch, the run's counts, the comparisons, the status. */
export function renderGrpoText(r: GrpoReportInput): string {
  const view = grpoView(r);
  const withheld = withheldText(view);
  const lines = [
    ...criticCardText(r.criticCard),
    ...judgeCardLines({ judgeCard: r.judgeCard, judgeModel: r.config.judgeModel, runId: r.runId }),
    ...(withheld ? [withheld] : []),
    ...r.epochs.map((e) => grpoEpochLine(e, r.config.maxLength, view)),
  ];
  const counts = runCounts(r);
  lines.push(`run ${r.runId}: ${counts ? countsLine(counts, 'rollout') : 'not trained: not counted (a run recorded before the counts)'}`);
  for (const x of r.comparisons ?? []) {
    const parts = [
      ...(view.scores ? [`score ${fmtPaired(x.paired.score)}${powerSuffix(x.paired.score, 'score')}`] : []),
      ...(view.codeMatch
        ? [`code match (unseen) ${fmtPaired(x.paired.codeMatchUnobserved, true)}${powerSuffix(x.paired.codeMatchUnobserved, 'codeMatchUnobserved')}`]
        : []),
    ];
    lines.push(
      `epoch ${gatedEpoch(x.epoch, x.gates ?? [])}: ${r.runId} - ${x.otherRunId} (${x.otherReward}): ${parts.length > 0 ? parts.join(', ') : 'withheld (see the judge card)'}`,
    );
  }
  for (const n of r.comparisonNotes ?? []) lines.push(`not compared: ${n}`);
  if ((r.comparisons ?? []).length > 0 || r.epochs.some((e) => e.eval?.paired)) lines.push(POWER_TEXT);
  lines.push(`${r.epochs.length} epoch(s), status ${r.status}`);
  return lines.join('\n');
}
