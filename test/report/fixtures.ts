// Report documents built by hand (pure tests of how a report presents its judge card, code match and plots).
import { cardChecks, DEFAULT_THRESHOLDS, qualification, type JudgeCard, type JudgeCardMeasures } from '../../domain/judge/card';
import type { ReportDocument } from '../../domain/report/renderHtml';
import { summarize, type EpisodeRow } from '../../domain/report/summarize';
import { episodeRow } from '../fixtures/episodeRows';

export const baseRow: EpisodeRow = episodeRow({ codeMatchUnobserved: 0.5 });

/** Two models x two settings x `methods` methods: `good` scores 4-5 and matches, `bad` scores 1-2 and does not. */
export function runRows(methods: number): EpisodeRow[] {
  const rows: EpisodeRow[] = [];
  for (let i = 0; i < methods; i++) {
    for (const model of ['good', 'bad']) {
      for (const setting of ['interactive', 'in-context'] as const) {
        const good = model === 'good';
        const score = good ? (setting === 'interactive' ? 5 : 4) : 1 + (i % 2);
        rows.push({
          ...baseRow,
          episodeId: `${model}/${setting}/${i}`,
          methodId: `src/m${i}`,
          model,
          setting,
          score,
          // The interactive agent saw some held-out inputs: all inputs counts them, unseen does not.
          codeMatch: good ? 0.9 : setting === 'interactive' ? 0.4 : 0.1,
          codeMatchUnobserved: good ? 0.85 : 0.1,
          statementCoverage: good ? 1 : 0.5,
          callsMade: setting === 'interactive' ? 6 : 0,
          endReason: good ? 'final' : i % 3 === 0 ? 'budget' : 'final',
          diagnostics: { heldout: { given: 2, generated: 8, counted: 10, unobserved: setting === 'interactive' ? 7 : 10 } },
        });
      }
    }
  }
  return rows;
}

export function measures(over: Partial<JudgeCardMeasures> = {}): JudgeCardMeasures {
  return {
    methods: 24,
    sources: { humaneval: 8, mbpp: 8, cruxeval: 8 },
    scored: 24,
    unparsable: 0,
    meanByRung: { gold: 4.8, partial: 3.1, nearMiss: 3.0, lookup: 1.9, generic: 1.7, wrong: 1.2, injection: 1.2, empty: 1.0 },
    goldBeatsWrongAndEmpty: 0.96,
    goldMinusEmpty: 3.8,
    nearMissBelowGold: 0.7,
    lookupBelowGold: 0.9,
    injectionNoHigher: 1,
    monotone: 0.8,
    scoreCodeMatchTau: 0.45,
    scoreCodeMatchPairs: 96,
    coderFidelity: 0.72,
    emptyFloor: 0.3,
    codeOnly: {
      scored: 24,
      meanByRung: { gold: 4.1, generic: 1.9, wrong: 1.3, injection: 1.3, empty: 1.1 },
      goldBeatsWrongAndEmpty: 0.92,
      goldMinusEmpty: 3.0,
      injectionNoHigher: 1,
      genericBelowGold: 0.92,
    },
    ...over,
  };
}

export function card(over: Partial<JudgeCardMeasures> = {}): JudgeCard {
  const m = measures(over);
  const checks = cardChecks(m);
  const q = qualification(checks);
  return {
    judgeModel: 'local/judge-1.5b',
    coderModel: 'local/judge-1.5b',
    judgeParams: {},
    coderParams: {},
    promptVersion: 'judge-v2',
    dataset: 'pau-v1',
    split: 'validation',
    cardKey: 'k',
    measures: m,
    checks,
    judgeQualified: q.judgeQualified,
    ...(q.judgeQualifiedCodeOnly === undefined ? {} : { judgeQualifiedCodeOnly: q.judgeQualifiedCodeOnly }),
    coderQualified: q.coderQualified,
    thresholds: DEFAULT_THRESHOLDS,
    rows: [],
    computedAt: '2026-12-01T12:00:00.000Z',
    workflowId: null,
  };
}

export function doc(rows: EpisodeRow[], extra: Partial<ReportDocument> = {}): ReportDocument {
  return {
    runId: 'run-1',
    generatedAt: '2026-12-01T12:00:00.000Z',
    run: { id: 'run-1', kind: 'benchmark', status: 'completed', config: {}, workflowId: null, startedAt: null, finishedAt: null },
    judgeModel: 'local/judge-1.5b',
    otherJudgeModels: [],
    summary: summarize(rows, { resamples: 300 }),
    episodes: rows,
    notes: [],
    ...extra,
  };
}
