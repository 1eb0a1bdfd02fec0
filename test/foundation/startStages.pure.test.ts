// npm start's plan and stage clock: the estimate comes from the reference figures until this machine has a
// record, then from the record; the dataset build drops out of the plan once it was built here; the
// summary lists every stage with its time.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reloadEnv } from '../../config/env';
import { stageClock, startPlanLines } from '../../scripts/client/startStages';

const saved = process.env.PAU_STATE_DIR;
let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-start-stages-'));
  process.env.PAU_STATE_DIR = dir;
  reloadEnv();
});
afterAll(() => {
  // the pure tier shares one process (isolate: false): put the variable back exactly, unset included
  if (saved === undefined) delete process.env.PAU_STATE_DIR;
  else process.env.PAU_STATE_DIR = saved;
  reloadEnv();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('npm start plan', () => {
  it('first start: every stage from the reference figures, the model install beside the stack and the build', () => {
    const text = startPlanLines({ modelsInUse: ['local/a'], modelsToInstall: ['local/a'], shippedDataset: false, shippedCard: false }).join('\n');
    for (const stage of ['stack', 'models', 'workers', 'doctor', 'head', 'dataset', 'calibration', 'benchmark', 'report'])
      expect(text).toMatch(new RegExp(`^${stage} `, 'm'));
    expect(text).toContain('install (download, verify) and serve the local models: local/a (beside the stack)');
    const cores = os.cpus().length;
    // The sandbox-bound stages scale with the cores (none on a 2-core machine like the reference).
    expect(text).toMatch(cores === 2 ? /^dataset .* reference\s*$/m : new RegExp(`^dataset .* reference × 2/${cores} cores`, 'm'));
    // The benchmark starts once its methods are checked (head) and the models serve, beside the rest of
    // the build, which the calibration follows; the report waits for both branches.
    const scale = 2 / cores;
    const expected = Math.max(Math.max(20 + 10 + 5 + 10 * scale, 45) + 370, 20 + 10 + 5 + 590 * scale + 24 * scale) + 5;
    expect(text).toContain('the benchmark starts on its methods as soon as they are checked, beside the rest of the build');
    expect(text).toContain(`about ${expected >= 90 ? `${(expected / 60).toFixed(1)} min` : `${expected.toFixed(0)} s`} to the first report`);
    // The judge's card follows the first report (not counted in it), then the report is rendered again.
    expect(text).toMatch(/^card +the judge's card .* 11\.5 min +reference\s*$/m);
    expect(text).toContain('computing it takes about 11.5 min more, and the report is then rendered again with its scores');
  });

  it('with a judge card shipped, the card stage is its check on a sample, not the whole card', () => {
    const text = startPlanLines({ modelsInUse: ['local/a'], modelsToInstall: [], shippedDataset: true, shippedCard: true }).join('\n');
    expect(text).toMatch(
      /^card +the judge's card when none is stored: the card shipped with the benchmark re-judged on 3 of its methods where its key holds, beside the benchmark .* 3\.2 min +reference \(the check\)\s*$/m,
    );
    expect(text).toContain('the shipped one is checked beside the benchmark (about 3.2 min; computing a card whole, about 40 min, follows the first report)');
    // The repository ships the 1.5B's card, so the default reads it from datasets/pau-v1/judge-cards/.
    expect(startPlanLines({ modelsInUse: ['local/a'], modelsToInstall: [] }).join('\n')).toContain('the shipped one is checked beside the benchmark');
  });

  it('without a real judge there is no card stage', () => {
    const text = startPlanLines({ modelsInUse: [], modelsToInstall: [], shippedDataset: true, judgeCard: false }).join('\n');
    expect(text).not.toMatch(/^card /m);
    expect(text).not.toContain('computing it takes');
  });

  it('with the dataset shipped as a file, the first start loads it: no build, no head, the benchmark after the load', () => {
    const text = startPlanLines({ modelsInUse: ['local/a'], modelsToInstall: ['local/a'], shippedDataset: true }).join('\n');
    expect(text).toMatch(/^dataset +load the shipped pau-v1 file .* 10 s +reference\s*$/m);
    expect(text).not.toMatch(/^head /m);
    const scale = 2 / os.cpus().length;
    const expected = Math.max(20 + 10 + 5 + 10, 45) + 24 * scale + 370 + 5;
    expect(text).toContain(`about ${(expected / 60).toFixed(1)} min to the first report (the dataset is loaded from the shipped file, not built)`);
  });

  it('a start records its stage times; the next plan uses them and skips the dataset build it made', () => {
    let t = 0;
    // The machine's counters on 2 cores: busy advances by a chosen share of the wall time per stage.
    const cpu = { busyMs: 0, totalMs: 0, cores: 2 };
    const advance = (to: number, busy: number) => {
      const wall = 2 * (to - t);
      cpu.busyMs += busy * wall;
      cpu.totalMs += wall;
      t = to;
    };
    const clock = stageClock(
      () => t,
      () => ({ ...cpu }),
    );
    clock.start('stack');
    advance(12_000, 0.25);
    clock.end('stack');
    clock.start('dataset');
    advance(70_000, 1);
    clock.end('dataset');
    clock.start('benchmark');
    advance(100_000, 0.5);
    clock.end('benchmark');
    clock.start('report');
    const summary = clock.summaryLines().join('\n');
    expect(summary).toMatch(/^stack +0 s +12 s +12\.0 s +25 %/m);
    expect(summary).toMatch(/^dataset +12 s +70 s +58\.0 s +100 %/m);
    expect(summary).toMatch(/^benchmark +70 s +100 s +30\.0 s +50 %/m);
    expect(summary).toMatch(/^report +100 s +\(not finished\)/m);
    // the whole start: (12·0.25 + 58 + 30·0.5) / 100 of the machine
    expect(summary).toContain("CPU busy: 76 % of the machine's 2 cores over the whole start");
    clock.save({ datasetReady: true });

    const text = startPlanLines({ modelsInUse: [], modelsToInstall: [] }).join('\n');
    expect(text).toMatch(/^stack +.* 12 s +measured here/m);
    expect(text).toMatch(/^benchmark +.* 30 s +measured here/m);
    expect(text).not.toMatch(/^dataset /m);
    expect(text).not.toMatch(/^models /m);
    expect(text).toContain('(the dataset is already built here)');
  });

  it('a stage that found its work done is shown but does not replace the recorded figure', () => {
    let t = 0;
    const clock = stageClock(() => t);
    clock.start('stack');
    t = 1000;
    clock.end('stack', 'already running');
    expect(clock.summaryLines().join('\n')).toMatch(/^stack +0 s +1 s +1\.0 s +(-|\d+ %) +already running/m);
    clock.save({ datasetReady: true });
    expect(startPlanLines({ modelsInUse: [], modelsToInstall: [] }).join('\n')).toMatch(/^stack +.* 12 s +measured here/m);
  });
});
