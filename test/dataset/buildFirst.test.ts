// `npm start`'s early benchmark: a build started with `first` checks the likeliest head of the test split
// before anything else, says so in its progress, and a benchmark started on that head runs while the rest
// of the build is still being checked; the finished dataset has exactly the golden rows' content hash
// (the same slice and config as buildGolden.test.ts: only the order of the checks changed).
import { sql } from 'drizzle-orm';
import { reloadEnv } from '../../config/env';
import { afterAll, describe, expect, it } from 'vitest';
import { closeSharedSandboxPool } from '../../activities/sandbox/index';
import { headSize } from '../../activities/dataset/build';
import type { BuildSummary } from '../../domain/dataset/summary';
import type { BenchmarkConfig, BenchmarkRunResult } from '../../domain/bench/types';
import { datasetWorkflowId, followBuildWithHead, headAgainstSplit, startDatasetBuild } from '../../scripts/client/dataset';
import { runMainJob } from '../../scripts/client/mainJob';
import { benchWorkflowId } from '../../domain/bench/workflowIds';
import { startBenchmark } from '../../scripts/client/starters';
import type { DatasetBuildProgress } from '../../workflows/dataset/buildDatasetWorkflow';
import { useStack } from '../helpers/stack';

const stack = useStack({ workers: ['pau', 'pau-sandbox'], dbPool: 4 });
afterAll(async () => {
  await closeSharedSandboxPool();
});

// buildGolden.test.ts's slice; one method per batch and one batch at a time after the head, so the rest of
// the build takes a while (batching is not part of the content hash).
const CONFIG = { name: 'ds-first', limit: 6, split: { test: 12, validation: 4 }, batchSize: 1, concurrency: 1 };
const GOLDEN_HASH = 'sha256:47921d9d6592bedb41c9954b04b2aa7461968a0828f3d7506e8e8785ea5df79e';

describe('a build that checks the benchmark methods first', () => {
  it('lets a benchmark start on the checked head before the build ends, and ends with the same content hash', { timeout: 600_000 }, async () => {
    await stack.db.execute(sql`update methods set checked_at = null`); // every method of the slice is checked again
    const { handle } = await startDatasetBuild(stack.client, CONFIG, { first: 1 });
    const follow = followBuildWithHead(stack.db, handle, 1);
    const head = await follow.head;
    expect(head).toHaveLength(1);

    const p = await handle.query<DatasetBuildProgress>('datasetProgress');
    expect(p.head?.checked).toBe(true);
    expect(p.head?.ids).toHaveLength(headSize(1));
    expect(p.head?.ids[0]).toBe(head[0]); // the likeliest first, and the sandbox accepted it

    const config: BenchmarkConfig = { dataset: CONFIG.name, split: 'test', models: ['mock-oracle'], settings: ['in-context'], samples: 1, methodIds: head };
    const bench = await startBenchmark(stack.client, 'first-head', config);
    const benchStarted = (await bench.describe()).startTime;
    const during = await handle.query<DatasetBuildProgress>('datasetProgress');
    expect(during.phase).toBe('checking');
    expect(during.checked).toBeLessThan(during.total);

    const result = (await bench.result()) as BenchmarkRunResult;
    expect(result.totals).toMatchObject({ done: 1, failed: 0 });
    const summary = (await follow.done) as BuildSummary;
    const build = await handle.describe();
    expect(benchStarted.getTime()).toBeLessThan(build.closeTime!.getTime());

    expect(summary.contentHash).toBe(GOLDEN_HASH);
    // Here the guess holds: the method checked first is the finished test split's first.
    const check = await headAgainstSplit(stack.db, CONFIG.name, head);
    expect(check.line).toContain(head[0]);
    expect(check.same).toBe(true);
  });

  it("npm start's main job: the benchmark runs on the checked head beside the build, then calibration and the report", { timeout: 600_000 }, async () => {
    const saved = process.env.PAU_MODELS;
    process.env.PAU_MODELS = 'mock-oracle'; // scripted: 10 test methods, judged by the scripted judge
    reloadEnv();
    try {
      const lines: string[] = [];
      const dataset = { name: 'ds-start', limit: 15, split: { test: 12, validation: 4 }, batchSize: 1, concurrency: 1 };
      const r = await runMainJob(stack.client, (s) => lines.push(s), { dataset });
      const text = lines.join('\n');
      expect(r, text).toEqual({ code: 0, datasetReady: true });
      const at = (re: RegExp) => lines.findIndex((l) => re.test(l));
      // The benchmark starts on the head, and the calibration (the finished test split) comes after it started.
      expect(at(/the benchmark's 10 methods are checked .* the benchmark starts on them, the build goes on beside it/), text).toBeGreaterThan(-1);
      expect(at(/^run id: /)).toBeLessThan(at(/^calibrated \d+ methods/));
      expect(at(/^calibrated \d+ methods/)).toBeGreaterThan(-1);
      // The build's end says what it cost in sandbox calls (the slice's verdicts may be recorded already: then none).
      expect(at(/^dataset ds-start: sandbox calls: (none|[\d,]+ \(each in a fresh process\))/), text).toBeGreaterThan(-1);
      expect(at(/(are the finished test split's first 10|NOTE: the benchmark ran before the build ended)/), text).toBeGreaterThan(-1);
      expect(at(/^report: /)).toBeGreaterThan(at(/^calibrated/));
      const runId = /^run id: (\S+)/m.exec(text)![1]!;
      const bench = await stack.client.workflow.getHandle(benchWorkflowId(runId)).describe();
      const build = await stack.client.workflow.getHandle(datasetWorkflowId(dataset.name)).describe();
      expect(bench.startTime.getTime()).toBeLessThan(build.closeTime!.getTime());
    } finally {
      if (saved === undefined) delete process.env.PAU_MODELS;
      else process.env.PAU_MODELS = saved;
      reloadEnv();
    }
  });
});
