// How a report presents its judge (issue 27, item 2): the judge card at the top, and what may be shown as a
// measurement. The one rule every surface follows (the benchmark report and its comparison, the SFT and GRPO
// reports, the inspect export): no judge, no score row (the judge-free measures: calls, coverage, end
// reasons); a judge without a passing card (unqualified, or no card yet) gives no score: the judge-free
// columns instead (code match only when the code writer qualified) and a sentence saying why; a run forced
// with such a judge shows its scores under an "UNQUALIFIED JUDGE — forced" banner. A document built before
// judge cards (a judge, no `judgeCard`) is shown as it was. Pure code.
import { z } from 'zod';
import { recordOf } from '../common/recordOf';
import {
  checkValue,
  failedCheckText,
  JUDGE_MODE_LABEL,
  JUDGE_MODES,
  modeWithheldWhy,
  qualifiedModes,
  unresolvedGap,
  type CardCheck,
  type JudgeCard,
  type JudgeCardStatus,
  type JudgeMode,
} from '../judge/card';
import type { TableView } from './summarize';

/** What the report may present as measurements. */
export interface ReportView {
  /** The run has a judge: without one there is no score row at all (not even marked as unqualified). */
  judged: boolean;
  /** Judge scores (score, fail rate) as the headline. */
  scores: boolean;
  /** Code match (the coder's): only with a coder that qualified (or forced, or no card information). */
  codeMatch: boolean;
  /** Scores shown although the judge did not qualify (forced): the banner's text. */
  forcedBanner: string | null;
  /** Why scores (or code match) are withheld; null when nothing is. */
  withheld: string | null;
  /** The card's code match of an empty description (name and signature alone): what a description adds is above it. */
  emptyFloor: number | null;
  /** A judge that does not resolve the middle of the scale: score differences under this gap are marked not resolved. */
  nearMissGap?: number | null;
}

/** What the tables read of a view (headline and HTML alike). */
export function tableView(v: ReportView): TableView {
  return { scores: v.scores, codeMatch: v.codeMatch, emptyFloor: v.emptyFloor, ...(v.nearMissGap != null ? { nearMissGap: v.nearMissGap } : {}) };
}

const list = (xs: readonly string[]) => xs.join('; ');

/** A run's judge as the rule reads it: the judge model of its judgments (null: none) and that judge's card status. */
export interface RunJudge {
  judgeModel: string | null;
  /** Absent with a judge: a document built before judge cards (shown as it was). */
  judgeCard?: JudgeCardStatus | undefined;
}

/** What a run with no judge shows: the judge-free measures, no score row. */
export const NO_JUDGE_VIEW: ReportView = { judged: false, scores: false, codeMatch: false, forcedBanner: null, withheld: null, emptyFloor: null };

/** The line a report without a judge shows where the judge card would be. */
export function noJudgeText(runId: string): string {
  return `no judge: the episodes are not judged, so there is no score, only the judge-free measures (judge them: npm run pau -- judge --run ${runId} --judge-model <model>)`;
}

export function reportView(run: RunJudge): ReportView {
  if (run.judgeModel === null) return NO_JUDGE_VIEW;
  const status = run.judgeCard;
  if (!status) return { judged: true, scores: true, codeMatch: true, forcedBanner: null, withheld: null, emptyFloor: null };
  if (status.status === 'missing') {
    const why = `no judge card for judge ${status.judgeModel} with code writer ${status.coderModel} yet (compute it: ${status.command})`;
    if (status.forced)
      return { judged: true, scores: true, codeMatch: true, forcedBanner: `UNQUALIFIED JUDGE — forced: ${why}`, withheld: null, emptyFloor: null };
    return {
      judged: true,
      scores: false,
      codeMatch: false,
      forcedBanner: null,
      withheld: `Scores withheld: ${why}; until then neither its scores nor its code match are measurements.`,
      emptyFloor: null,
    };
  }
  const card = status.card;
  const floor = card.measures.emptyFloor;
  if (status.status === 'qualified') {
    const parts = [
      ...withheldModes(status).map((m) => `Scores of methods judged ${JUDGE_MODE_LABEL[m]} withheld: ${modeWithheldWhy(card, m)}.`),
      ...(card.coderQualified ? [] : [`Code match withheld: code writer ${card.coderModel} did not pass its checks (${list(failedChecks(card, 'coder'))}).`]),
    ];
    const gap = unresolvedGap(card.measures);
    return {
      judged: true,
      scores: true,
      codeMatch: card.coderQualified,
      forcedBanner: null,
      withheld: parts.length > 0 ? parts.join(' ') : null,
      emptyFloor: floor,
      ...(gap !== null ? { nearMissGap: gap } : {}),
    };
  }
  if (status.forced) {
    return {
      judged: true,
      scores: true,
      codeMatch: true,
      forcedBanner: `UNQUALIFIED JUDGE — forced: ${list(status.failed)}`,
      withheld: null,
      emptyFloor: floor,
    };
  }
  const judgeFailed = failedChecks(card, 'judge');
  const parts = [
    judgeFailed.length > 0 ? `judge ${card.judgeModel} did not pass its card (${list(judgeFailed)})` : `judge ${card.judgeModel} is not qualified`,
    ...(card.coderQualified ? [] : [`code match withheld too: code writer ${card.coderModel} did not pass (${list(failedChecks(card, 'coder'))})`]),
  ];
  return {
    judged: true,
    scores: false,
    codeMatch: card.coderQualified,
    forcedBanner: null,
    withheld: `Scores withheld: ${parts.join('; ')}.`,
    emptyFloor: floor,
  };
}

/**
 * Two runs side by side (`report --compare`): a metric is compared only when both runs may show it, so a run
 * whose judge has no passing card (or no judge) withholds its scores from the comparison as from its own report.
 * `withheld` says what the other run withholds that this one shows.
 */
export function comparedView(self: ReportView, other: ReportView, otherRunId: string): ReportView {
  const scores = self.scores && other.scores;
  const codeMatch = self.codeMatch && other.codeMatch;
  const lost = [...(self.scores && !scores ? ['scores'] : []), ...(self.codeMatch && !codeMatch ? ['code match'] : [])];
  const why = other.judged ? (other.withheld ?? 'its judge has no passing card') : `it has no judge`;
  return {
    judged: self.judged && other.judged,
    scores,
    codeMatch,
    forcedBanner: self.forcedBanner ?? other.forcedBanner,
    withheld: lost.length > 0 ? `Compared without ${lost.join(' and ')}: run ${otherRunId} withholds them (${why.replace(/\.$/, '')}).` : null,
    emptyFloor: null,
  };
}

/**
 * The judge modes whose scores a report withholds while it shows the others: those a qualified card did not
 * qualify (failed, or never tested). None otherwise: an unqualified or missing card withholds every score, a
 * forced run shows every score under its banner, and a document from before cards shows what it had.
 */
export function withheldModes(status: JudgeCardStatus | undefined): JudgeMode[] {
  if (status?.status !== 'qualified') return [];
  const ok = qualifiedModes(status.card);
  return JUDGE_MODES.filter((m) => !ok.includes(m));
}

function failedChecks(card: JudgeCard, applies: CardCheck['applies']): string[] {
  return card.checks.filter((c) => c.applies === applies && !c.pass).map(failedCheckText);
}

/** The card's title line: who, qualified or not, on what. */
export function cardTitle(status: JudgeCardStatus): string {
  if (status.status === 'missing')
    return `judge card: none yet for judge ${status.judgeModel}, code writer ${status.coderModel}; compute it: ${status.command}`;
  const c = status.card;
  const q = (ok: boolean) => (ok ? 'qualified' : 'NOT QUALIFIED');
  const judge =
    c.judgeQualifiedCodeOnly === undefined
      ? `${q(c.judgeQualified)} (the code-only mode not tested)`
      : `${q(c.judgeQualified)} ${JUDGE_MODE_LABEL.reference}, ${q(c.judgeQualifiedCodeOnly)} ${JUDGE_MODE_LABEL.codeOnly}`;
  return `judge card: judge ${c.judgeModel} ${judge}, code writer ${c.coderModel} ${q(c.coderQualified)} (${c.dataset}/${c.split}, ${c.measures.methods} methods, prompts ${c.promptVersion}, computed ${c.computedAt.slice(0, 10)})`;
}

/** The card's checks as table rows: check, model, value, needs, pass. */
export function cardCheckRows(card: JudgeCard): string[][] {
  return card.checks.map((c) => [c.name, c.applies, checkValue(c), c.threshold, c.pass ? 'pass' : 'FAIL']);
}

const selfJudgeSchema = z.array(z.object({ agent: z.string(), judge: z.string(), role: z.string(), relation: z.string() }));
export type SelfJudge = z.infer<typeof selfJudgeSchema>[number];

/** The run's recorded self-judging (runs forced with --allow-self-judge); [] when none or unreadable. */
export function selfJudgeOf(runConfig: unknown): SelfJudge[] {
  const raw = runConfig && typeof runConfig === 'object' ? (runConfig as { selfJudge?: unknown }).selfJudge : undefined;
  const parsed = selfJudgeSchema.safeParse(raw);
  return parsed.success ? parsed.data : [];
}

/** `self-judging (forced with --allow-self-judge): agent A graded by J as judge (base model)`, or null. */
export function selfJudgeText(runConfig: unknown): string | null {
  const s = selfJudgeOf(runConfig);
  if (s.length === 0) return null;
  return `self-judging (forced with --allow-self-judge): ${s.map((x) => `agent ${x.agent} graded by ${x.judge} as ${x.role} (${x.relation})`).join('; ')}`;
}

/**
 * Rows with the scores of the withheld modes taken away (`scoreWithheld`: in no score mean, never filled as a
 * failure), and the sentences a report says about modes: how many methods lost their scores, and, when the
 * shown scores mix methods judged in both modes, that they do (a code-only score runs lower for a right
 * answer, docs/judging.md "Modes").
 */
export function withholdScoresByMode<R extends { methodId: string; judgeMode?: JudgeMode; score: number | null; scoreWithheld?: boolean }>(
  rows: readonly R[],
  modes: readonly JudgeMode[],
): { rows: R[]; notes: string[] } {
  const out = rows.map((r) => (r.judgeMode && modes.includes(r.judgeMode) ? { ...r, score: null, scoreWithheld: true } : r));
  const methods = (pred: (r: R) => boolean) => new Set(out.filter(pred).map((r) => r.methodId)).size;
  const notes = modes.flatMap((m) => {
    const n = methods((r) => r.judgeMode === m);
    return n === 0 ? [] : [`Scores of ${n} method(s) judged ${JUDGE_MODE_LABEL[m]} are withheld (the judge card did not qualify the judge in that mode).`];
  });
  const shown = recordOf(JUDGE_MODES, (m) => methods((r) => r.judgeMode === m && !r.scoreWithheld));
  if (shown.reference > 0 && shown.codeOnly > 0)
    notes.push(
      `Scores average ${shown.reference} method(s) judged ${JUDGE_MODE_LABEL.reference} and ${shown.codeOnly} judged ${JUDGE_MODE_LABEL.codeOnly} (CRUXEval has no reference; a right answer scores lower without one): compare sources in the per-source table, not modes through the mean.`,
    );
  return { rows: out, notes };
}
