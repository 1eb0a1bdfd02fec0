// A judgment from its plan, the judge's verdict, the generated code and the sandbox runs (docs/judging.md):
// code match on the counted held-out inputs and on those the agent never saw, the contradictions of the
// generated code with the agent's own observations, coverage, the gold-description control and the
// judge's cost. The rules a researcher changes to change how the benchmark scores; pure code, no I/O
// (activities/judge/activities.ts recordJudgment loads the observations and stores the row).
import type { CallResult, Coverage, ErrorInfo } from '../sandbox/schemas';
import type { ObservedCall } from '../episode/observedCalls';
import { codeFailure, contradictions, type EpisodeDiagnostics, explorationCounts, goldControl, heldoutDisagreements, underExplored } from './diagnostics';
import { codeMatchOf, countedInputs, unobservedInputs } from './codeMatch';
import type { ContradictionResult } from './contradictionPrompt';
import { chooseByAgreement } from './mbrExec';
import type { ScoreDetail } from './scoreDistribution';
import type { DescriptionVerdict, GeneratedCode, GoldCode, JudgeEpisodeResult, JudgePlan } from './types';

/** What the judge workflow hands over once the judge, the coder and the sandbox have answered. */
export interface JudgmentInput {
  plan: JudgePlan;
  verdict: DescriptionVerdict;
  generated: GeneratedCode;
  /** The original on heldoutGiven ++ heldoutGenerated. */
  original: CallResult[];
  /** The generated code on heldoutGiven ++ heldoutGenerated ++ observedArgs; null without code. */
  candidate: CallResult[] | null;
  /** The generated code did not compile (the sandbox's error); absent in histories from before. */
  candidateSourceError?: ErrorInfo | null;
  /** Coverage of the original by the observed inputs (null when there were none). */
  coverage: Coverage | null;
  /** The judge model's contradiction classification (absent in histories before it existed). */
  contradiction?: ContradictionResult;
  /** The control: code from the gold description run on observedArgs (absent in histories before it). */
  gold?: { generated: GoldCode; results: CallResult[] | null; sourceError: ErrorInfo | null };
  /**
   * With k > 1 programs per description (MBR-exec, mbrExec.ts): every program, program 0 (= `generated`,
   * `candidate`) first; the one the others agree with on the held-out inputs is the one judged.
   */
  samples?: { generated: GeneratedCode; candidate: CallResult[] | null; candidateSourceError: ErrorInfo | null }[];
}

/**
 * The judged program of a description: `input` itself with one program; with k, the MBR-exec choice over
 * the held-out inputs (code that did not compile takes no part), its cost the sum of all k, and what was
 * chosen for the diagnostics (each program's code match on the counted inputs beside it).
 */
function keptProgram(
  input: JudgmentInput,
  nHeld: number,
  matchOf: (candidate: CallResult[] | null) => number | null,
): { input: JudgmentInput; record: { k: number; chosen: number; agreement: (number | null)[]; codeMatch: (number | null)[] } | null } {
  const samples = input.samples;
  if (!samples || samples.length < 2) return { input, record: null };
  const runnable = samples.map((p) => (p.candidate && !codeFailure(p.candidateSourceError, p.candidate) ? p.candidate : null));
  const { chosen, agreement } = chooseByAgreement(
    runnable.map((c) => (c ? c.slice(0, nHeld) : null)),
    input.plan.config.equality,
  );
  const kept = samples[chosen]!;
  const total = (key: 'tokensIn' | 'tokensOut' | 'costUsd') => samples.reduce((s, p) => s + p.generated[key], 0);
  return {
    input: {
      ...input,
      generated: { ...kept.generated, tokensIn: total('tokensIn'), tokensOut: total('tokensOut'), costUsd: total('costUsd') },
      candidate: kept.candidate,
      candidateSourceError: kept.candidateSourceError,
    },
    record: { k: samples.length, chosen, agreement, codeMatch: runnable.map(matchOf) },
  };
}

/** The judgments row a judgment stores (its timestamps aside). */
export interface JudgmentRow {
  episodeId: string;
  judgeModel: string;
  score: number | null;
  scoreDetail: ScoreDetail | null;
  /** 1: the judge's answer had no score, even after the retry. */
  unparsable: number;
  rationale: string;
  generatedCode: string | null;
  codeMatch: number | null;
  statementCoverage: number | null;
  branchCoverage: number | null;
  diagnostics: EpisodeDiagnostics & Record<string, unknown>;
}

/** Line and branch coverage shares: 0 when the agent observed nothing, null when the sandbox measured none. */
export function coverageShares(coverage: Coverage | null, observedCount: number): { statementCoverage: number | null; branchCoverage: number | null } {
  if (observedCount === 0) return { statementCoverage: 0, branchCoverage: 0 };
  const lines = coverage?.lines;
  const branches = coverage?.branches;
  const statementCoverage = lines && lines.total > 0 ? lines.hit / lines.total : null;
  const branchCoverage = branches ? (branches.total > 0 ? branches.hit / branches.total : statementCoverage) : null;
  return { statementCoverage, branchCoverage };
}

/** What the judgment stores of the classifier's answer (diagnostics.contradiction): the verdict, the cited observations, the reason. */
export function contradictionRecord(r: ContradictionResult) {
  return { verdict: r.verdict, cited: r.cited, observations: r.observations, rationale: r.rationale.slice(0, 4000) };
}

/** The judge's tokens and dollars for the episode: the verdict, the code, the classifier and the gold control. */
export function judgeCost(input: Pick<JudgmentInput, 'verdict' | 'generated' | 'contradiction' | 'gold'>): {
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
} {
  const parts = [input.verdict, input.generated, input.contradiction, input.gold?.generated];
  const sum = (key: 'tokensIn' | 'tokensOut' | 'costUsd') => parts.reduce((s, p) => s + (p?.[key] ?? 0), 0);
  return { tokensIn: sum('tokensIn'), tokensOut: sum('tokensOut'), costUsd: sum('costUsd') };
}

/** The judgment's row and the workflow's result, from what the judge, the coder and the sandbox returned and the agent's observations. */
export function judgmentOf(sampled: JudgmentInput, observed: readonly ObservedCall[]): { row: JudgmentRow; result: JudgeEpisodeResult } {
  const { plan } = sampled;
  const cfg = plan.config;
  const nGiven = plan.heldoutGiven.length;
  const nHeld = nGiven + plan.heldoutGenerated.length;
  // Inputs that count: every held-out input the original answered within limits, except mutated ones
  // that raised (a mutated input the method rejects says little; the dataset's typed ones count).
  const counted = countedInputs(sampled.original, nGiven, plan.heldoutRaisingCounts ?? false);
  const { input, record: mbr } = keptProgram(sampled, nHeld, (c) => (plan.codeMatchExcluded ? null : codeMatchOf(sampled.original, c, counted, cfg.equality)));
  const { verdict, generated } = input;
  // Code that does not compile or lacks the entry point matches nothing (0, reason recorded) and is not
  // checked against the observations: a compile error is no contradiction.
  const failed = input.candidate ? codeFailure(input.candidateSourceError, input.candidate) : null;
  const matchOn = (inputs: readonly number[]): number | null =>
    plan.codeMatchExcluded ? null : codeMatchOf(input.original, failed ? null : input.candidate, inputs, cfg.equality);
  const codeMatch = matchOn(counted);
  // The same share over the held-out inputs the agent never saw (its calls, or its examples in-context).
  const heldoutArgs = [...plan.heldoutGiven, ...plan.heldoutGenerated];
  const unobserved = unobservedInputs(
    heldoutArgs,
    counted,
    observed.map((o) => o.arguments),
  );
  const checkedObserved = input.candidate && !failed ? contradictions(observed, input.candidate.slice(nHeld), cfg.equality) : null;
  const checked = checkedObserved?.checked ?? null;
  const bad = checkedObserved?.contradictions ?? null;
  const { statementCoverage, branchCoverage } = coverageShares(input.coverage, observed.length);
  const diagnostics: JudgmentRow['diagnostics'] = {
    ...explorationCounts(observed),
    observedChecked: checked,
    contradictions: bad,
    contradictsObserved: checked === null ? null : (bad ?? 0) > 0,
    underExplored: underExplored(statementCoverage, branchCoverage, input.coverage?.branches?.total ?? 0, cfg.underExploredThreshold),
    underExploredThreshold: cfg.underExploredThreshold,
    unparsable: verdict.unparsable,
    ...(verdict.neutralised ? { neutralisedLines: verdict.neutralised.lines, neutralisedTags: verdict.neutralised.tags } : {}),
    noCode: generated.code === null,
    codeFailure: failed,
    heldout: { given: nGiven, generated: plan.heldoutGenerated.length, counted: counted.length, unobserved: unobserved.length },
    codeMatchUnobserved: matchOn(unobserved),
    heldoutDisagreements: heldoutDisagreements(heldoutArgs, input.original, input.candidate, counted, cfg.equality),
    ...(plan.codeMatchExcluded ? { codeMatchExcluded: plan.codeMatchExcluded } : {}),
    coderModel: cfg.coderModel,
    ...(mbr ? { coderSamples: mbr } : {}),
    requestParams: { judge: cfg.judgeParams ?? null, coder: cfg.coderParams ?? null },
    ...(input.contradiction ? { contradiction: contradictionRecord(input.contradiction) } : {}),
    ...(input.gold
      ? {
          goldControl: goldControl(
            observed,
            {
              hasGold: !input.gold.generated.noGold,
              code: input.gold.generated.code,
              results: input.gold.results,
              failed: input.gold.results ? codeFailure(input.gold.sourceError, input.gold.results) : null,
            },
            cfg.equality,
          ),
        }
      : {}),
    judgeCost: judgeCost(input),
  };
  const row: JudgmentRow = {
    episodeId: plan.episodeId,
    judgeModel: cfg.judgeModel,
    score: verdict.score,
    scoreDetail: verdict.scoreDetail ?? null,
    unparsable: verdict.unparsable ? 1 : 0,
    rationale: verdict.rationale,
    generatedCode: generated.code,
    codeMatch,
    statementCoverage,
    branchCoverage,
    diagnostics,
  };
  const result: JudgeEpisodeResult = {
    episodeId: plan.episodeId,
    judgeModel: cfg.judgeModel,
    score: verdict.score,
    unparsable: verdict.unparsable,
    codeMatch,
    statementCoverage,
    branchCoverage,
    contradictsObserved: diagnostics.contradictsObserved,
  };
  return { row, result };
}
