// One producer, one table: SFT and GRPO reports through produceReport(kind) (platform/report/) into `reports`
// (migration 0010), read back by the CLI as stored; benchmark rows from before the kinds still read; the
// activity that wraps the producer fails typed and non-retryable. Real Postgres, the real CLI.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeProduceReport } from '../../activities/report/produceReport';
import { connect, type DbHandle } from '../../db/client';
import { reports } from '../../db/schema/reports';
import { runs } from '../../db/schema/runs';
import { ReportError } from '../../domain/report/reportError';
import type { ProduceReportInput } from '../../domain/report/reportRequest';
import { produceReport } from '../../platform/report/produceReport';
import { storedReportFiles } from '../../scripts/client/report';
import { runCli } from '../helpers/cli';
import { benchmarkConfig } from '../fixtures/runs';
import { grpoConfig } from '../fixtures/grpoConfig';
import { grpoEpoch } from '../fixtures/grpoEpoch';

let dbh: DbHandle;
const stamp = Date.now();
const SFT = `sft-report-test-${stamp}`;
const GRPO = `grpo-report-test-${stamp}`;
const BENCH = `bench-report-test-${stamp}`;
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-training-report-'));

const GRPO_CONFIG = grpoConfig({ dataset: 'pau-v1', methodsPerEpoch: 2, group: 4, budgets: { maxCalls: 4 }, evalEvery: 0, maxLength: 2048 });

const GRPO_EPOCH = grpoEpoch({
  checkpointId: `${GRPO}-e1`,
  methods: ['m1', 'm2'],
  rollouts: 8,
  failedRollouts: 1,
  meanReward: 2.5,
  meanCodeMatch: 0.5,
  meanCriticReward: 0.4,
  ratedSteps: 12,
  update: { steps: 2, meanKl: 0.002, finalLoss: 0.1, meanClipFrac: 0, tokensPerS: 50, trainS: 10, droppedTooLong: 1, longestTokens: 2100, lengthCutMasked: 2 },
  prepared: { rollouts: 6, skipped: { not_as_served: 2 } },
  timing: { rolloutsMs: 1000, criticMs: 1000, updateMs: 1000, exportMs: 1000, evalMs: 0 },
});

beforeAll(async () => {
  dbh = connect(process.env.DATABASE_URL, 2);
  await dbh.db.insert(runs).values([
    {
      id: SFT,
      kind: 'sft',
      status: 'completed',
      config: { data: 'd1', base: 'local/smollm2-135m', maxLength: 4096, eval: null },
      summary: {
        checkpointModel: `ckpt:${SFT}`,
        evalRunId: null,
        training: {
          examples: 40,
          steps: 5,
          firstLoss: 2,
          finalLoss: 1,
          trainS: 50,
          tokensPerS: 200,
          sPerStep: 10,
          resumedFromStep: 0,
          droppedTooLong: 0,
          longestTokens: 3900,
          lengthCutMasked: 1,
          notAsServed: 4,
        },
      },
    },
    { id: GRPO, kind: 'grpo', status: 'completed', config: GRPO_CONFIG, summary: { epochs: [GRPO_EPOCH] } },
    { id: BENCH, kind: 'benchmark', status: 'completed', config: benchmarkConfig({ models: ['mock-oracle'] }) },
  ]);
});
afterAll(async () => {
  await dbh.db.delete(runs).where(sql`${runs.id} in (${SFT}, ${GRPO}, ${BENCH})`);
  await dbh.close();
  fs.rmSync(out, { recursive: true, force: true });
});

describe('produceReport(kind)', () => {
  it('stores an SFT report with its kind, text and the counts, and points the run at it', async () => {
    const r = await produceReport(dbh.db, { kind: 'sft', runId: SFT });
    expect(r.kind).toBe('sft');
    const [row] = await dbh.db.select().from(reports).where(eq(reports.id, r.reportId));
    expect(row!.kind).toBe('sft');
    expect(row!.text).toContain(
      'not trained: 4 of 44 examples not as served (9.1 %); 0 of 40 longer than max_length 4096 (0.0 %, longest 3900 tokens); 40 trained; 1 cut turn(s) masked',
    );
    expect(row!.html).toContain('4 of 44 examples not as served (9.1 %)');
    const [run] = await dbh.db.select({ summary: runs.summary }).from(runs).where(eq(runs.id, SFT));
    expect((run!.summary as { report?: number }).report).toBe(r.reportId);
  });

  it('stores a GRPO report whose per-epoch and run counts come from the preparation and the update', async () => {
    const r = await produceReport(dbh.db, { kind: 'grpo', runId: GRPO });
    const [row] = await dbh.db.select().from(reports).where(eq(reports.id, r.reportId));
    expect(row!.kind).toBe('grpo');
    expect(row!.judgeModel).toBe('mock-oracle');
    expect(row!.text).toContain('epoch 1: reward 2.500');
    expect(row!.text).toContain(
      `run ${GRPO}: not trained: 2 of 8 rollouts not as served (25.0 %); 1 of 6 longer than max_length 2048 (16.7 %, longest 2100 tokens); 5 trained; 2 cut turn(s) masked`,
    );
    expect(row!.html).toContain('2 (25.0 %) / 1 (16.7 %) / 2');
  });

  it('refuses a kind it does not know and a run of the wrong kind, saying which', async () => {
    const bad = await produceReport(dbh.db, { kind: 'dpo', runId: SFT } as unknown as ProduceReportInput).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ReportError);
    expect((bad as ReportError).reason).toBe('badInput');
    const wrong = await produceReport(dbh.db, { kind: 'grpo', runId: SFT }).catch((e: unknown) => e);
    expect((wrong as ReportError).reason).toBe('notFound');
    expect((wrong as ReportError).message).toContain(`no GRPO run "${SFT}"`);
  });

  it('as the activity, fails typed and without retrying (a retry would read the same rows)', async () => {
    const activity = makeProduceReport(() => dbh.db);
    const bad = await activity({ kind: 'dpo', runId: SFT } as unknown as ProduceReportInput).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ApplicationFailure);
    expect((bad as ApplicationFailure).type).toBe('ReportBadInput');
    expect((bad as ApplicationFailure).nonRetryable).toBe(true);
    const missing = await activity({ kind: 'sft', runId: `${SFT}-none` }).catch((e: unknown) => e);
    expect((missing as ApplicationFailure).type).toBe('ReportRunNotFound');
    expect((missing as ApplicationFailure).nonRetryable).toBe(true);
    expect((missing as ApplicationFailure).message).toContain(`no SFT run "${SFT}-none"`);
    expect((await activity({ kind: 'sft', runId: SFT })).kind).toBe('sft');
  });

  it('reads a benchmark report stored before the kinds (no kind given, no text) as a benchmark report', async () => {
    // A workflow history recorded before 0010 calls produceReport({ runId }): the kind defaults to benchmark.
    const r = await produceReport(dbh.db, { runId: BENCH });
    expect(r.kind).toBe('benchmark');
    await dbh.db.update(reports).set({ text: null }).where(eq(reports.id, r.reportId));
    const files = await storedReportFiles(dbh.db, BENCH, undefined, out);
    expect(files?.kind).toBe('benchmark');
    expect(files?.headline).toBe(r.headline);
    expect(await storedReportFiles(dbh.db, BENCH, 'grpo', out)).toBeUndefined();
  });
});

describe('the CLI reads the stored report', () => {
  it('`grpo report RUN` prints the stored text without producing another; `report show` shows any kind', async () => {
    const before = await dbh.db.select({ id: reports.id }).from(reports).where(eq(reports.runId, GRPO));
    const g = await runCli(['grpo', 'report', GRPO, '--out', path.join(out, 'g.html')]);
    expect(g.stderr).toBe('');
    expect(g.code).toBe(0);
    expect(g.stdout).toContain('2 of 8 rollouts not as served (25.0 %)');
    expect(fs.readFileSync(path.join(out, 'g.html'), 'utf8')).toContain('PAU GRPO report');
    const after = await dbh.db.select({ id: reports.id }).from(reports).where(eq(reports.runId, GRPO));
    expect(after.length).toBe(before.length);
    const s = await runCli(['report', 'show', SFT, '--out', out]);
    expect(s.code).toBe(0);
    expect(s.stdout).toContain('sft report');
    expect(s.stdout).toContain('4 of 44 examples not as served (9.1 %)');
  });

  it('`sft report RUN` prints the stored text and writes the HTML; a run of another kind names no GRPO run: one line, exit 2', async () => {
    const r = await runCli(['sft', 'report', SFT, '--out', path.join(out, 's.html')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('4 of 44 examples not as served (9.1 %)');
    expect(r.stdout).toContain(`wrote ${path.join(out, 's.html')}`);
    expect(fs.readFileSync(path.join(out, 's.html'), 'utf8')).toContain('4 of 44 examples not as served (9.1 %)');
    const wrong = await runCli(['grpo', 'report', SFT, '--out', out]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr.trim()).toBe(`pau grpo: no grpo run "${SFT}" (npm run pau -- runs list shows the runs)`);
  });
});
