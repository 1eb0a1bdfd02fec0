// The SFT and GRPO reports' counts of what training left out (issue 23: no silent truncation): the figures
// are right, and every summary the terminal and the HTML show carries them.
import { describe, expect, it } from 'vitest';
import { epochCounts, grpoEpochLine, renderGrpoReport, renderGrpoText, runCounts, type GrpoReportInput } from '../../domain/trainingReport/grpoReport';
import { renderSftHtml, renderSftText, type SftReportDocument } from '../../domain/trainingReport/sftReport';
import { countsFigures, countsLine, sumCounts } from '../../domain/trainingReport/trainingCounts';
import type { GrpoEpochFigures } from '../../domain/training/grpo';
import { grpoConfig } from '../fixtures/grpoConfig';
import { grpoEpoch } from '../fixtures/grpoEpoch';

describe('training counts', () => {
  it('counts what the data held, what was trained, and both shares', () => {
    const c = { given: 38, notAsServed: 2, droppedTooLong: 1, longestTokens: 9001, lengthCutMasked: 3, maxLength: 8192 };
    expect(countsFigures(c)).toEqual({ total: 40, trained: 37, notAsServedShare: 2 / 40, tooLongShare: 1 / 38 });
    expect(countsLine(c, 'example')).toBe(
      'not trained: 2 of 40 examples not as served (5.0 %); 1 of 38 longer than max_length 8192 (2.6 %, longest 9001 tokens); 37 trained; 3 cut turn(s) masked (end-of-turn token not trained)',
    );
  });

  it('says "not counted" for a count a run did not record, and keeps it unknown in sums', () => {
    const old = { given: 10, notAsServed: null, droppedTooLong: null, longestTokens: null, lengthCutMasked: null, maxLength: null };
    expect(countsLine(old, 'rollout')).toBe(
      'not trained: not counted of 10 rollouts not as served (-); not counted of 10 longer than max_length (trainer default) (-); ? trained; not counted cut turn(s) masked (end-of-turn token not trained)',
    );
    const now = { given: 5, notAsServed: 1, droppedTooLong: 0, longestTokens: 100, lengthCutMasked: 0, maxLength: null };
    expect(sumCounts([now, old])).toMatchObject({ given: 15, notAsServed: null, droppedTooLong: null, longestTokens: 100 });
    expect(sumCounts([now, now])).toMatchObject({ given: 10, notAsServed: 2, droppedTooLong: 0, lengthCutMasked: 0 });
    expect(sumCounts([])).toBeNull();
  });
});

const sftDoc = (training: SftReportDocument['training']): SftReportDocument => ({
  kind: 'sft',
  runId: 'sft-r',
  status: 'completed',
  generatedAt: 'now',
  config: { data: 'd1', base: 'local/smollm2-135m', maxLength: 4096, eval: null },
  checkpointModel: 'ckpt:sft-r',
  training,
  evalRunId: null,
  comparison: null,
  error: null,
});

describe('SFT report', () => {
  const training = {
    examples: 50,
    steps: 7,
    firstLoss: 2.5,
    finalLoss: 1.25,
    trainS: 70,
    tokensPerS: 300,
    sPerStep: 10,
    resumedFromStep: 0,
    droppedTooLong: 0,
    longestTokens: 3000,
    lengthCutMasked: 4,
    notAsServed: 3,
  };

  it('shows the training line and the counts in the text and the HTML', () => {
    const text = renderSftText(sftDoc(training));
    expect(text).toContain('trained ckpt:sft-r on 50 examples: 7 steps, loss 2.5000 -> 1.2500, 10.0 s/step, 300.0 tok/s');
    expect(text).toContain(
      'not trained: 3 of 53 examples not as served (5.7 %); 0 of 50 longer than max_length 4096 (0.0 %, longest 3000 tokens); 50 trained; 4 cut turn(s) masked',
    );
    expect(text).toContain('no evaluation (--no-eval)');
    const html = renderSftHtml(sftDoc(training));
    expect(html).toContain('Left out of training');
    expect(html).toContain('3 of 53 examples not as served (5.7 %)');
  });

  it('says a run recorded before the not-as-served count did not count it', () => {
    const { notAsServed: _, ...before } = training;
    expect(renderSftText(sftDoc(before))).toContain('not trained: not counted of 50 examples not as served (-); 0 of 50 longer');
    expect(renderSftText(sftDoc(null))).toContain('not trained: not counted (no training figures)');
  });
});

describe('SFT report beside its base', () => {
  const est = (mean: number) => ({ n: 4, mean, lo: mean, hi: mean, clusters: 4 });
  const diff = { n: 4, mean: 0.5, lo: 0.25, hi: 0.75, wins: 2, ties: 2, losses: 0, unpaired: 0 };
  const comparison = {
    checkpointModel: 'ckpt:sft-r',
    baseModel: 'local/smollm2-135m',
    evalRunId: 'sft-r-eval',
    judgeModel: 'mock-oracle',
    episodes: { checkpoint: 4, base: 4, failed: 0, judged: 8 },
    rows: (['score', 'codeMatchUnobserved', 'statementCoverage'] as const).map((metric) => ({
      setting: 'interactive',
      metric,
      checkpoint: est(metric === 'score' ? 3.25 : 0.75),
      base: est(metric === 'score' ? 2.75 : 0.5),
      diff,
    })),
  };
  const withCmp = (judgeCard?: SftReportDocument['judgeCard']): SftReportDocument => ({
    ...sftDoc(null),
    evalRunId: 'sft-r-eval',
    comparison,
    ...(judgeCard ? { judgeCard } : {}),
  });

  it("withholds the evaluation's scores when its judge has no card, and keeps coverage", () => {
    const missing = {
      status: 'missing' as const,
      judgeModel: 'mock-oracle',
      coderModel: 'mock-oracle',
      command: 'npm run pau -- calibrate judge --judge mock-oracle',
      forced: false,
    };
    const text = renderSftText(withCmp(missing));
    expect(text).toContain('judge card: none yet for judge mock-oracle');
    expect(text).toContain('Scores withheld: no judge card for judge mock-oracle');
    expect(text).not.toMatch(/score \(1-5\)|code match \(unseen\)\s/);
    expect(text).not.toContain('3.250');
    expect(text).toMatch(/interactive\s+stmt cov\s+0\.750/);
    const html = renderSftHtml(withCmp(missing));
    expect(html).not.toContain('<td>score (1-5)</td>');
    expect(html).toContain('<td>stmt cov</td>');
    // A report stored before judge cards is shown as it was.
    expect(renderSftText(withCmp())).toMatch(/interactive\s+score \(1-5\)\s+3\.250/);
  });
});

describe('GRPO report', () => {
  const epoch = (i: number, prepared: GrpoEpochFigures['prepared'], dropped: number | null): GrpoEpochFigures =>
    grpoEpoch({
      epoch: i,
      checkpointId: `c${i}`,
      rollouts: 8,
      update: {
        steps: 1,
        meanKl: 0.001,
        finalLoss: 0,
        meanClipFrac: 0,
        tokensPerS: 1,
        trainS: 1,
        droppedTooLong: dropped,
        longestTokens: 700,
        lengthCutMasked: 1,
      },
      ...(prepared ? { prepared } : {}),
    });
  const input = (epochs: GrpoEpochFigures[]): GrpoReportInput => ({
    runId: 'g',
    status: 'completed',
    config: grpoConfig({ judgeModel: 'j', methodsPerEpoch: 2, group: 4, epochs: epochs.length, maxLength: 1024 }),
    epochs,
    examples: [],
    generatedAt: 'now',
  });

  it('counts each epoch and the run: not as served from the preparation, too long from the update', () => {
    const e0 = epoch(0, { rollouts: 7, skipped: { not_as_served: 1, group_skipped: 0 } }, 0);
    const e1 = epoch(1, { rollouts: 6, skipped: { not_as_served: 2 } }, 1);
    expect(epochCounts(e0, 1024)).toEqual({ given: 7, notAsServed: 1, droppedTooLong: 0, longestTokens: 700, lengthCutMasked: 1, maxLength: 1024 });
    const r = input([e0, e1]);
    expect(runCounts(r)).toEqual({ given: 13, notAsServed: 3, droppedTooLong: 1, longestTokens: 700, lengthCutMasked: 2, maxLength: 1024 });
    expect(grpoEpochLine(e1, 1024)).toContain('not trained: 2 of 8 rollouts not as served (25.0 %); 1 of 6 longer than max_length 1024 (16.7 %');
    const text = renderGrpoText(r);
    expect(text).toContain(
      'run g: not trained: 3 of 16 rollouts not as served (18.8 %); 1 of 13 longer than max_length 1024 (7.7 %, longest 700 tokens); 12 trained; 2 cut turn(s) masked',
    );
    expect(text).toContain('2 epoch(s), status completed');
    const html = renderGrpoReport(r);
    expect(html).toContain('not as served (left out) / too long (dropped) / cut turns masked');
    expect(html).toContain('2 (25.0 %) / 1 (16.7 %) / 1');
    expect(html).toContain('3 of 16 rollouts not as served (18.8 %)');
  });

  it('shows the tokens trained as sampled and re-tokenised, and the sampler–trainer gap, in the epoch line and the table', () => {
    const base = epoch(0, { rollouts: 8, skipped: {} }, 0);
    const sampled = { ...base, update: { ...base.update, sampledTokens: 412, retokenisedTokens: 0, samplerGap: 0.0123, samplerOutsideClip: 0.004, tisCap: 2 } };
    expect(grpoEpochLine(sampled, 1024)).toContain(
      'tokens trained as sampled 412, re-tokenised 0; sampler–trainer gap: mean |Δ log-prob| 0.0123, 0.4 % of tokens outside the clip range, truncated IS at 2',
    );
    const html = renderGrpoReport(input([sampled]));
    expect(html).toContain('tokens trained as sampled / re-tokenised; sampler–trainer |Δ log-prob| (outside clip)');
    expect(html).toContain('412 / 0; 0.0123 (0.4 %)');
    // an endpoint that returned no ids: every token re-tokenised, no gap to show
    const none = { ...base, update: { ...base.update, sampledTokens: 0, retokenisedTokens: 300, samplerGap: null, samplerOutsideClip: null, tisCap: null } };
    expect(grpoEpochLine(none, 1024)).toContain('tokens trained as sampled 0, re-tokenised 300; no sampler log-probs recorded');
    // sampled, but every advantage 0 with a fresh adapter: no step ran, so no gap was measured (not "none recorded")
    const noop = {
      ...base,
      update: { ...base.update, steps: 0, sampledTokens: 120, retokenisedTokens: 0, samplerGap: null, samplerOutsideClip: null, tisCap: null },
    };
    expect(grpoEpochLine(noop, 1024)).toContain('tokens trained as sampled 120, re-tokenised 0; sampler–trainer gap not measured (no update step ran');
    // a run recorded before the count: no such line
    expect(grpoEpochLine(base, 1024)).not.toContain('trained as sampled');
    expect(renderGrpoReport(input([base]))).toMatch(/<td>-<\/td>/);
  });

  it('a run recorded before the counts says so instead of showing zeros', () => {
    const r = input([epoch(0, undefined, null)]);
    expect(runCounts(r)).toBeNull();
    expect(renderGrpoText(r)).toContain('run g: not trained: not counted (a run recorded before the counts)');
    expect(renderGrpoReport(r)).toContain('not counted: this run was recorded before the counts');
  });
});
