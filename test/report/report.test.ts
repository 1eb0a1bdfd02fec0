// The report on the real stack: rows seeded into the test Postgres, then `pau report` as a user runs it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headlineRows, pairedRows, summarize, type EpisodeRow } from '../../domain/report/summarize';
import { produceReportFiles } from '../../scripts/client/report';
import { connect, type DbHandle } from '../../db/client';
import { methods } from '../../db/schema/datasets';
import { episodes, judgments, runs } from '../../db/schema/runs';
import { runCli } from '../helpers/cli';
import { benchmarkConfig } from '../fixtures/runs';
import { episodeRow } from '../fixtures/episodeRows';
import { judgeCards } from '../../db/schema/judgeCards';
import { judgePromptVersion } from '../../domain/judge/card';
import { buildJudgeCard } from '../../domain/judge/cardSummary';
import { DEFAULT_JUDGE_FORMAT } from '../../domain/judge/judgePrompt';
import { requestParams } from '../../domain/llm/requestParams';
import { models } from '../../config/models';

let dbh: DbHandle;
const stamp = Date.now();
const RUN = `report-test-${stamp}`;
const RUN2 = `report-test-prev-${stamp}`;
/** Judged by the scripted judge, which has no judge card, and not forced: its own report withholds its scores. */
const UNCARDED = `report-test-uncarded-${stamp}`;
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-report-'));

/**
 * Judged by the scripted judge with a card of its own data set that qualifies it against a reference and not
 * against the code alone: its CRUXEval methods (no reference) lose their scores.
 */
const BY_MODE = `report-test-modes-${stamp}`;
const MODES_DATASET = `report-modes-${stamp}`;

// Forced past the judge card (none is computed here): this file is about the figures, the card has its own tests.
async function seedRun(runId: string, oracleScore: number, forced = true, dataset = 'fixture') {
  const db = dbh.db;
  await db.insert(runs).values({
    id: runId,
    kind: 'benchmark',
    status: 'completed',
    config: benchmarkConfig({ dataset, models: ['mock-oracle', 'mock-null'], ...(forced ? { allowUnqualifiedJudge: true } : {}) }),
  });
  for (let i = 0; i < 6; i++) {
    // The by-mode run: even methods are CRUXEval's (no reference), odd ones HumanEval's with a gold description.
    const byMode = dataset === MODES_DATASET;
    const src = byMode ? (i % 2 ? 'humaneval' : 'cruxeval') : i % 2 ? 'mbpp' : 'humaneval';
    const methodId = `${src}/rt-${stamp}-${byMode ? 'm' : ''}${i}`;
    await db
      .insert(methods)
      .values({
        id: methodId,
        source: src,
        sourceId: String(i),
        code: 'def f(x):\n    return x\n',
        ...(byMode && src === 'humaneval' ? { goldDescription: 'Return x.' } : {}),
      })
      .onConflictDoNothing();
    for (const model of ['mock-oracle', 'mock-null']) {
      for (const setting of ['interactive', 'in-context'] as const) {
        const id = `${runId}/${methodId}/${model}/${setting}/0`;
        await db.insert(episodes).values({
          id,
          runId,
          methodId,
          model,
          setting,
          status: 'completed',
          finalDescription: 'x',
          callsMade: 3,
          tokensIn: 100,
          tokensOut: 20,
          costUsd: 0.001,
          workflowId: `episode/${id}`,
        });
        const good = model === 'mock-oracle';
        // The by-mode run: code-only methods score 2, so any leak of them into a mean shows.
        const score = dataset === MODES_DATASET && methodId.startsWith('cruxeval/') ? 2 : good ? (setting === 'interactive' ? oracleScore : 4) : 1;
        await db.insert(judgments).values({
          episodeId: id,
          judgeModel: 'mock-oracle',
          score,
          rationale: 'r',
          codeMatch: good ? 1 : 0,
          statementCoverage: good ? 1 : 0.5,
          branchCoverage: good ? 1 : 0.25,
          diagnostics: {
            calls: 3,
            repeatedCalls: 1,
            errors: 0,
            agentErrors: 0,
            contradictsObserved: !good,
            underExplored: !good,
            unparsable: false,
            noCode: false,
          },
        });
      }
    }
  }
}

beforeAll(async () => {
  dbh = connect(process.env.DATABASE_URL, 2);
  await seedRun(RUN, 5);
  await seedRun(RUN2, 4);
  await seedRun(UNCARDED, 2, false);
  await seedRun(BY_MODE, 5, false, MODES_DATASET);
  // mock-oracle's card on that data set: every check passes except the code-only mode's (gold - empty 0.3).
  const strong = { gold: 4.5, partial: 3, generic: 1.2, wrong: 1.1, injection: 1.1, empty: 1 };
  const weak = { gold: 1.6, generic: 1.4, wrong: 1.3, injection: 1.3, empty: 1.3 };
  const key = {
    judgeModel: 'mock-oracle',
    coderModel: 'mock-oracle',
    judgeParams: requestParams(models().get('mock-oracle')),
    coderParams: requestParams(models().get('mock-oracle')),
    promptVersion: judgePromptVersion(DEFAULT_JUDGE_FORMAT),
    dataset: MODES_DATASET,
    split: 'validation',
  };
  const card = buildJudgeCard(
    { ...key, cardKey: `modes-${stamp}` },
    Array.from({ length: 20 }, (_, i) => ({
      methodId: `c${i}`,
      source: 'humaneval',
      scores: strong,
      codeMatch: { gold: 0.9, empty: 0.1 },
      mode: 'reference' as const,
      codeOnlyScores: weak,
    })),
    { computedAt: new Date().toISOString(), workflowId: null },
  );
  expect([card.judgeQualified, card.judgeQualifiedCodeOnly]).toEqual([true, false]);
  await dbh.db.insert(judgeCards).values({
    ...key,
    cardKey: card.cardKey,
    status: 'completed',
    card,
    judgeQualified: true,
    coderQualified: true,
    finishedAt: new Date(),
  });
});
afterAll(async () => {
  await dbh.close();
  fs.rmSync(out, { recursive: true, force: true });
});

describe('report', () => {
  it('summarizes per model x setting with intervals, paired differences and diagnostics', async () => {
    const r = await produceReportFiles(dbh.db, { runId: RUN }, out);
    const s = r.document.summary;
    const g = (model: string, setting: string) => s.groups.find((x) => x.model === model && x.setting === setting)!;
    expect(g('mock-oracle', 'interactive').metrics.score).toMatchObject({ n: 6, mean: 5, lo: 5, hi: 5 });
    expect(g('mock-null', 'in-context').metrics.failRate.mean).toBe(1);
    expect(g('mock-oracle', 'in-context').metrics.codeMatch.mean).toBe(1);
    const paired = s.paired.find((p) => p.model === 'mock-oracle' && p.metric === 'score')!;
    expect(paired.diff).toMatchObject({ n: 6, mean: 1, lo: 1, hi: 1, unpaired: 0 });
    const diag = s.diagnostics.find((d) => d.model === 'mock-null' && d.setting === 'interactive')!;
    expect(diag).toMatchObject({ failures: 6, contradictsObserved: 6, failuresContradicting: 1, underExplored: 6 });
    expect(s.bySource.map((b) => b.source)).toContain('mbpp');
    expect(r.document.episodes[0]!.uiLink).toMatch(/\/workflows\/episode%2F/);
    // The headline: oracle first (the first row under the table's rule; the judge card comes before it).
    const lines = r.headline.split('\n');
    expect(lines[lines.findIndex((l) => /^-+\s/.test(l)) + 1]).toMatch(/^mock-oracle\s+interactive/);
  });

  it('`pau report` writes a self-contained HTML file and a JSON file, and prints the headline', async () => {
    const r = await runCli(['report', RUN, '--compare', RUN2, '--out', out]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/mock-oracle\s+interactive\s+6\/6\s+0\s+5\.00/);
    expect(r.stdout).toContain('judged episodes only:');
    expect(r.stdout).toMatch(/interactive: mock-null - mock-oracle\s+score \(1-5\)\s+-4\.00 \[-4\.00, -4\.00\] 0\/0\/6/);
    expect(r.stdout).toContain(`compared with ${RUN2}`);
    expect(r.stdout).toMatch(/mock-oracle\s+interactive\s+score\s+5\.000\s+4\.000\s+\+1\.000/);
    const html = fs.readFileSync(path.join(out, `${RUN}.html`), 'utf8');
    expect(html).toContain('<svg');
    expect(html).toContain('Interactive minus in-context');
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|url\(http/); // no external assets
    expect(html).toContain('not a real LLM');
    const json = JSON.parse(fs.readFileSync(path.join(out, `${RUN}.json`), 'utf8'));
    expect(json.runId).toBe(RUN);
    expect(json.compare.runId).toBe(RUN2);
  });

  it('withholds the scores of the methods judged in a mode the card did not qualify, keeping the others and code match', async () => {
    const r = await produceReportFiles(dbh.db, { runId: BY_MODE }, out);
    const g = r.document.summary.groups.find((x) => x.model === 'mock-oracle' && x.setting === 'interactive')!;
    // The 3 HumanEval methods only, each 5: the 3 CRUXEval methods' 2s are in no mean and not filled as 1s.
    expect(g.metrics.score).toMatchObject({ n: 3, mean: 5 });
    expect(g.metrics.failRate).toMatchObject({ n: 3, mean: 0 });
    expect(g.metrics.codeMatch).toMatchObject({ n: 6, mean: 1 });
    expect(r.document.episodes.filter((e) => e.scoreWithheld).map((e) => e.judgeMode)).toEqual(Array(12).fill('codeOnly'));
    expect(r.headline).toContain('judge mock-oracle qualified against a reference, NOT QUALIFIED against the code alone');
    expect(r.headline).toContain('Scores of methods judged against the code alone withheld: code-only: gold above wrong and empty (share of methods): 0%');
    expect(r.headline).toContain('Scores of 3 method(s) judged against the code alone are withheld');
    expect(r.headline).toMatch(/mock-oracle\s+interactive\s+6\/6\s+0\s+5\.00 \[5\.00, 5\.00\]/);
  });

  it("`report --compare` withholds the scores of a run whose judge has no card, as that run's own report does", async () => {
    const own = await runCli(['report', UNCARDED, '--out', out]);
    expect(own.code, own.stderr).toBe(0);
    expect(own.stdout).toContain('Scores withheld: no judge card for judge mock-oracle');
    const r = await runCli(['report', '--compare', `${RUN},${UNCARDED}`, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    // This run (forced past its card) keeps its own scores; the comparison shows none of the other's.
    expect(r.stdout).toMatch(/mock-oracle\s+interactive\s+6\/6\s+0\s+5\.00/);
    const compared = r.stdout.slice(r.stdout.indexOf(`compared with ${UNCARDED}:`));
    expect(compared).toContain(`Compared without scores and code match: run ${UNCARDED} withholds them (Scores withheld: no judge card for judge mock-oracle`);
    expect(compared).not.toMatch(/\bscore\s+\d\.\d{3}|score \(1-5\)|code match \(unseen\)\s+[+-]/);
    expect(compared).toMatch(/mock-oracle\s+interactive\s+statementCoverage\s+1\.000\s+1\.000\s+\+0\.000/);
    const html = fs.readFileSync(path.join(out, `${RUN}.html`), 'utf8');
    const section = html.slice(html.indexOf(`<h2>Compared with ${UNCARDED}</h2>`), html.indexOf('<h2>Paired differences per method</h2>'));
    expect(section).toContain('Compared without scores and code match');
    expect(section).not.toContain('score (1-5)');
  });

  it('says clearly when the run does not exist', async () => {
    const r = await runCli(['report', 'no-such-run', '--out', out]);
    expect(r.code).toBe(2); // a name that names nothing, as from every verb (docs/cli.md)
    expect(r.stderr.trim()).toBe('pau report: no run "no-such-run" (npm run pau -- runs list shows the runs)');
  });

  const base = episodeRow({ endReason: null });

  it('counts failed, unjudged and unparsable episodes as score 1 / code match 0 in the headline, and leaves them out of the judged-only means', () => {
    const s = summarize([
      base,
      { ...base, episodeId: 'f', judged: false, score: null, codeMatch: null },
      { ...base, episodeId: 'g', unparsable: true, score: null },
      { ...base, episodeId: 'h', status: 'failed', judged: false, score: null, codeMatch: null, statementCoverage: null, branchCoverage: null },
      // A method excluded from code match: its unjudged episode is a score-1 failure, but no code-match 0.
      { ...base, episodeId: 'i', methodId: 'x', judged: false, score: null, codeMatch: null, codeMatchExcluded: true },
      // Still running: in no mean.
      { ...base, episodeId: 'j', status: 'running', judged: false, score: null, codeMatch: null },
    ]);
    const g = s.groups[0]!;
    expect(g).toMatchObject({ episodes: 6, judged: 2, unparsable: 1, failedEpisodes: 1, unjudged: 2, inProgress: 1 });
    // All ended episodes: scores 4, 1, 1, 1, 1 -> 8/5; fail 4/5; code match 0.5, 0, 0.5 (g was judged), 0 -> 1/4.
    expect(g.metrics.score).toMatchObject({ n: 5, mean: 8 / 5, clusters: 2 });
    expect(g.metrics.failRate.mean).toBe(4 / 5);
    expect(g.metrics.codeMatch).toMatchObject({ n: 4, mean: 0.25 });
    // Judged only: the one parsable score.
    expect(g.judgedOnly.score).toMatchObject({ n: 1, mean: 4 });
    expect(g.judgedOnly.failRate.mean).toBe(0);
    expect(g.judgedOnly.codeMatch).toMatchObject({ n: 2, mean: 0.5 });
    expect(s.distribution[0]!.counts).toEqual({ '1': 0, '2': 0, '3': 0, '4': 1, '5': 0, unparsable: 1 });
    const head = headlineRows(s);
    expect(head.rows[0]).toContain('1 failed, 2 unjudged, 1 unparsable, 1 in progress');
  });

  it('pairs models and settings per method, with wins / ties / losses', () => {
    const rows: EpisodeRow[] = [];
    const add = (model: string, setting: 'interactive' | 'in-context', methodId: string, scores: number[]) =>
      rows.push(
        ...scores.map((score, sample) => ({ ...base, episodeId: `${model}/${setting}/${methodId}/${sample}`, model, setting, methodId, sample, score })),
      );
    // Per method means: a = 5, 3, 2; b = 4, 3, 3 -> a - b = +1, 0, -1; a's second sample of m1 averages in.
    add('a', 'interactive', 'm1', [5, 5]);
    add('a', 'interactive', 'm2', [3]);
    add('a', 'interactive', 'm3', [2]);
    add('b', 'interactive', 'm1', [4]);
    add('b', 'interactive', 'm2', [3]);
    add('b', 'interactive', 'm3', [3]);
    add('b', 'in-context', 'm1', [2]);
    add('b', 'in-context', 'm4', [2]);
    const s = summarize(rows, { resamples: 500 });
    const ab = s.modelPairs.find((p) => p.setting === 'interactive' && p.metric === 'score')!;
    expect(ab).toMatchObject({ a: 'a', b: 'b' });
    expect(ab.diff).toMatchObject({ n: 3, mean: 0, wins: 1, ties: 1, losses: 1, unpaired: 0 });
    // Fail rate: lower is better, so a's m3 (2 <= 2 fails, b's 3 does not) is a loss for a.
    const fail = s.modelPairs.find((p) => p.setting === 'interactive' && p.metric === 'failRate')!;
    expect(fail.diff).toMatchObject({ mean: 1 / 3, wins: 0, ties: 2, losses: 1 });
    const ic = s.paired.find((p) => p.model === 'b' && p.metric === 'score')!;
    expect(ic.diff).toMatchObject({ n: 1, mean: 2, wins: 1, unpaired: 3 });
    // Three methods are below the report's threshold for comparing (a one-line "too few"); asked for, the row is there.
    expect(pairedRows(s).tooFew).toMatch(/^n = 3: too few methods to compare/);
    const row = pairedRows(s, undefined, 3).rows.find((r) => r[0] === 'interactive: a - b' && r[1] === 'score (1-5)')!;
    expect(row[2]).toMatch(/^\+0\.00 \[-\d\.\d\d, \d\.\d\d\] 1\/1\/1$/);
  });
});
