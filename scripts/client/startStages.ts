// The stages of `npm start`: what will run and for how long on this machine (printed first), a clock that
// times each stage, the end summary, and the record of those times that the next start estimates from.
// Stages in one group run at the same time (the model install beside the stack and the dataset build; the
// benchmark beside the rest of the build once its methods are checked; docs/cli.md, "npm start").
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { env } from '../../config/env';
import { formatTable } from '../../domain/report/table';
import { shippedDatasetFile } from '../../platform/dataset/file';
import { shippedCardFiles } from '../../platform/judge/shippedCardDir';

export type StartStage = 'stack' | 'models' | 'workers' | 'doctor' | 'head' | 'dataset' | 'calibration' | 'benchmark' | 'report' | 'card';
const STAGES = ['stack', 'models', 'workers', 'doctor', 'head', 'dataset', 'calibration', 'benchmark', 'report', 'card'] as const;

/**
 * Seconds per stage on the reference machine (2 cores, idle), used until this machine has its own record.
 * `dataset` and `calibration` run in the sandbox on every core, so they are scaled by 2 / cores; the others
 * wait on one process each. Head and dataset: a fresh clone that built the dataset (2026-12-02; the build
 * beside the benchmark 593 s, the head 7 s). The rest: a fresh clone's `npm start -- --once` with an empty
 * PAU_CACHE_DIR (2026-12-04; the shipped dataset loaded, the 1.5B's card computed after the first report);
 * benchmark (to the first report: 5 anchor methods, the 0.5B on 1) and card from a fresh clone on 2 cores,
 * 2026-12-06, contrast format, the card's judge one method at a time (the first report at 367 s, the
 * benchmark's judging then until 677 s, the card 683 s, about 34 s per method).
 */
const REFERENCE_S: Record<StartStage, number> = {
  stack: 20,
  models: 45,
  workers: 10,
  doctor: 5,
  head: 10,
  dataset: 590,
  calibration: 24,
  benchmark: 370,
  report: 5,
  card: 690,
};
/** The dataset `npm start` benchmarks on (the main job's, scripts/client/mainJob.ts). */
export const START_DATASET = 'pau-v1';

/** Loading the shipped dataset file instead of building it (verify, import in one transaction; docs/datasets.md). */
const LOAD_S = 10;
const LOAD_WHAT = 'load the shipped pau-v1 file (datasets/pau-v1/: verify its hashes, import in one transaction), not build it';
const SCALES_WITH_CORES: readonly StartStage[] = ['head', 'dataset', 'calibration'];
const REFERENCE_CORES = 2;

const WHAT: Record<StartStage, string> = {
  stack: 'start Temporal, Postgres, the mock model server and the codec endpoint; apply migrations',
  models: 'install (download, verify) and serve the local models',
  workers: 'start the workers (the workflow bundle is built once)',
  doctor: 'one activity on each queue',
  head: "check the benchmark's methods first (the likeliest head of the test split)",
  dataset: 'build the pau-v1 method set once (every method checked in the sandbox), beside the benchmark',
  calibration: 'code-match controls on the start-up methods (no judge), once the build ends',
  benchmark: 'the start-up benchmark with judging',
  report: 'write the report',
  card: "the judge's card (20 validation methods) when none is stored, after the first report; the report is then rendered again",
};

const recordSchema = z.object({
  cores: z.number().int().positive(),
  recordedAt: z.string(),
  /** Seconds each stage took when it did its work (a stage that found everything in place is not recorded). */
  stages: z.partialRecord(z.enum(STAGES), z.number().nonnegative()),
  /** The start-up dataset was built with this state directory (so the next start skips its build). */
  datasetReady: z.boolean().default(false),
});
type StartRecord = z.infer<typeof recordSchema>;

const recordFile = () => path.join(env().PAU_STATE_DIR, 'start-stages.json');

function readRecord(): StartRecord | undefined {
  try {
    return recordSchema.parse(JSON.parse(fs.readFileSync(recordFile(), 'utf8')));
  } catch {
    return undefined; // none yet, or from an older version: the reference figures stand in
  }
}

export interface StartPlanInput {
  /** Local models to install before they can be served (none: serving only). */
  modelsToInstall: string[];
  /** Local models served by this start. */
  modelsInUse: string[];
  /** The repository ships the start-up dataset as a file, so a first start loads it (default: whether the file is there). */
  shippedDataset?: boolean;
  /** A real judge is in use, whose card (if none is stored) is computed after the first report (default true). */
  judgeCard?: boolean;
  /** The start-up dataset ships a judge card, checked on a sample instead of computed (default: whether one is there). */
  shippedCard?: boolean;
}

/** The shipped card's check on the reference machine: the 1.5B's 3 methods re-judged, 190 s (2026-12-07, 2 idle cores). */
const SHIPPED_CHECK_S = 190;
const SHIPPED_CHECK_WHAT =
  "the judge's card when none is stored: the card shipped with the benchmark re-judged on 3 of its methods where its key holds, beside the benchmark (else computed whole after the first report, about 40 min); the report is then rendered again";

/** The plan, as lines: each stage, its estimate and basis, and the wall time with the parallel groups. */
export function startPlanLines(input: StartPlanInput): string[] {
  const rec = readRecord();
  const cores = os.cpus().length;
  const estimate = (stage: StartStage): { s: number; basis: string } => {
    const own = rec?.stages[stage];
    if (own !== undefined) return { s: own, basis: `measured here ${rec!.recordedAt.slice(0, 10)}` };
    const scale = SCALES_WITH_CORES.includes(stage) ? REFERENCE_CORES / cores : 1;
    return { s: REFERENCE_S[stage] * scale, basis: `reference${scale === 1 ? '' : ` × ${REFERENCE_CORES}/${cores} cores`}` };
  };
  const datasetBuilt = rec?.datasetReady ?? false;
  const rows: [StartStage, string, { s: number; basis: string }][] = [];
  const add = (stage: StartStage, what = WHAT[stage], est = estimate(stage)) => rows.push([stage, what, est]);
  add('stack');
  if (input.modelsInUse.length > 0)
    add(
      'models',
      input.modelsToInstall.length > 0 ? `${WHAT.models}: ${input.modelsToInstall.join(', ')} (beside the stack)` : 'serve the local models (installed)',
      input.modelsToInstall.length > 0 ? estimate('models') : { s: 5, basis: 'serving only' },
    );
  add('workers');
  add('doctor');
  const loads = !datasetBuilt && (input.shippedDataset ?? fs.existsSync(shippedDatasetFile(START_DATASET)));
  if (loads) add('dataset', LOAD_WHAT, { s: LOAD_S, basis: 'reference' });
  else if (!datasetBuilt) {
    add('head');
    add('dataset');
  }
  if (loads || datasetBuilt) add('calibration', 'code-match controls on the start-up methods (no judge), before the benchmark');
  else add('calibration');
  add('benchmark');
  add('report');
  const shippedCard = input.shippedCard ?? shippedCardFiles(START_DATASET).length > 0;
  if (input.judgeCard !== false) {
    if (shippedCard)
      add('card', SHIPPED_CHECK_WHAT, rec?.stages.card !== undefined ? estimate('card') : { s: SHIPPED_CHECK_S, basis: 'reference (the check)' });
    else add('card');
  }
  const s = (stage: StartStage) => rows.find((r) => r[0] === stage)?.[2].s ?? 0;
  const setup = s('stack') + s('workers') + s('doctor');
  // The model install runs beside the stack, workers, doctor and the build. With a build, the benchmark
  // starts once its methods are checked (and the models serve), beside the rest of the build, which the
  // calibration follows; without one, the calibration and then the benchmark run after the models.
  const total =
    datasetBuilt || loads
      ? Math.max(setup + s('dataset'), s('models')) + s('calibration') + s('benchmark') + s('report')
      : Math.max(Math.max(setup + s('head'), s('models')) + s('benchmark'), setup + s('dataset') + s('calibration')) + s('report');
  const fmt = (x: number) => (x >= 90 ? `${(x / 60).toFixed(1)} min` : `${x.toFixed(0)} s`);
  return [
    `npm start will run these stages on this machine (${cores} cores); estimates from ${rec ? `this machine's last start (${recordFile()}), else ` : ''}the reference machine (2 cores, idle, nothing cached):`,
    formatTable(
      ['stage', 'what', 'estimate', 'basis'],
      rows.map(([stage, what, est]) => [stage, what, fmt(est.s), est.basis]),
    ),
    loads
      ? `about ${fmt(total)} to the first report (the dataset is loaded from the shipped file, not built); the model install runs beside the stack and the load.`
      : `about ${fmt(total)} to the first report${datasetBuilt ? ' (the dataset is already built here)' : ''}; the model install runs beside the stack and the dataset build${datasetBuilt ? '' : ', and the benchmark starts on its methods as soon as they are checked, beside the rest of the build'}.`,
    ...(input.judgeCard !== false
      ? [
          shippedCard
            ? `Where the judge has no stored card, the shipped one is checked beside the benchmark (about ${fmt(s('card'))}; computing a card whole, about 40 min, follows the first report), and the report is then rendered again with its scores.`
            : `Where the judge has no stored card, computing it takes about ${fmt(s('card'))} more, and the report is then rendered again with its scores.`,
        ]
      : []),
  ];
}

/** CPU time of the whole machine so far, summed over its cores (ms): busy (user, nice, system, irq) and all. */
export interface CpuTimes {
  busyMs: number;
  totalMs: number;
  cores: number;
}

/** The machine's CPU counters (os.cpus(): /proc/stat on Linux). */
export function machineCpuTimes(): CpuTimes {
  const cpus = os.cpus();
  let busyMs = 0;
  let totalMs = 0;
  for (const { times: t } of cpus) {
    busyMs += t.user + t.nice + t.sys + t.irq;
    totalMs += t.user + t.nice + t.sys + t.irq + t.idle;
  }
  return { busyMs, totalMs, cores: cpus.length };
}

/** The share of the machine's CPU that was busy between two readings (null when no time passed). */
export function cpuBusyShare(from: CpuTimes, to: CpuTimes): number | null {
  const total = to.totalMs - from.totalMs;
  return total > 0 ? (to.busyMs - from.busyMs) / total : null;
}

/**
 * Times the stages of one start; `summaryLines` at the end, `save` for the next start's estimate. Each stage's
 * span also reads the machine's CPU counters: the work of a start runs in processes outside its own tree
 * (workers, model servers, sandbox, Temporal, Postgres), so the share of the whole machine that was busy is the
 * figure that says whether the start used the cores it had.
 */
export function stageClock(now: () => number = Date.now, cpu: () => CpuTimes = machineCpuTimes) {
  const t0 = now();
  const cpu0 = cpu();
  const spans = new Map<StartStage, { start: number; end?: number; note?: string; cpuStart: CpuTimes; cpuEnd?: CpuTimes }>();
  const pct = (x: number | null) => (x === null ? '-' : `${(100 * x).toFixed(0)} %`);
  return {
    start(stage: StartStage): void {
      spans.set(stage, { start: now(), cpuStart: cpu() });
    },
    /** `note` (e.g. "already built") marks a stage that found its work done: shown, not recorded. */
    end(stage: StartStage, note?: string): void {
      const span = spans.get(stage);
      if (span && span.end === undefined) Object.assign(span, { end: now(), cpuEnd: cpu(), ...(note ? { note } : {}) });
    },
    async time<T>(stage: StartStage, fn: () => Promise<T>): Promise<T> {
      this.start(stage);
      try {
        return await fn();
      } finally {
        this.end(stage);
      }
    },
    summaryLines(): string[] {
      const at = (ms: number) => `${((ms - t0) / 1000).toFixed(0)} s`;
      const rows = [...spans].map(([stage, sp]) => [
        stage,
        at(sp.start),
        sp.end === undefined ? '(not finished)' : at(sp.end),
        sp.end === undefined ? '' : `${((sp.end - sp.start) / 1000).toFixed(1)} s`,
        sp.cpuEnd === undefined ? '' : pct(cpuBusyShare(sp.cpuStart, sp.cpuEnd)),
        sp.note ?? '',
      ]);
      const whole = cpu();
      return [
        `stage times (from the start of \`pau start\`; stages overlap where they ran side by side), ${((now() - t0) / 1000).toFixed(0)} s in all:`,
        formatTable(['stage', 'from', 'to', 'took', 'CPU busy', ''], rows),
        `CPU busy: ${pct(cpuBusyShare(cpu0, whole))} of the machine's ${whole.cores} cores over the whole start (every process on the machine: workers, model servers, sandbox, Temporal, Postgres; a stage's figure covers its span, shared with the stages beside it).`,
      ];
    },
    /** Writes this start's times over the last record (stages that did no work keep their old figure). */
    save(extra: { datasetReady: boolean }): void {
      const old = readRecord();
      const stages: StartRecord['stages'] = { ...old?.stages };
      for (const [stage, sp] of spans) if (sp.end !== undefined && !sp.note) stages[stage] = Math.round((sp.end - sp.start) / 100) / 10;
      const rec: StartRecord = { cores: os.cpus().length, recordedAt: new Date().toISOString(), stages, datasetReady: extra.datasetReady };
      try {
        fs.mkdirSync(path.dirname(recordFile()), { recursive: true });
        fs.writeFileSync(recordFile(), `${JSON.stringify(rec, null, 2)}\n`);
      } catch {
        // A read-only state dir costs only the next estimate.
      }
    },
  };
}
export type StageClock = ReturnType<typeof stageClock>;
