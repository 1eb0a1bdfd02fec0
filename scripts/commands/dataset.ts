// `pau dataset build|show|export|list`: build the PAU method set (BuildDatasetWorkflow) with a live
// progress bar, and read it back from Postgres.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { env } from '../../config/env';
import { connectClient } from '../../config/temporal';
import { connect } from '../../db/client';
import { BuildConfig, DEFAULT_BY_SOURCE, type SourceSplit, type BuildConfigInput } from '../../domain/dataset/config';
import { DatasetFileError } from '../../domain/dataset/fileRecord';
import { manifestPathOf, shippedDatasetFile, writeDatasetFile } from '../../platform/dataset/file';
import { datasetRecords, loadDatasetFile, loadLine } from '../../platform/dataset/fileStore';
import { ensureTrainerPython, TRAINER_DIR } from '../../platform/process/trainerPython';
import { compareWithShipped } from '../client/datasetFile';
import { START_DATASET } from '../client/mainJob';
import type { SourceName } from '../../domain/dataset/sources';
import { getDataset, getDatasetMethods, listDatasets } from '../../platform/dataset/store';
import type { BuildSummary } from '../../domain/dataset/summary';
import { parseCommandArgs, UsageError } from '../lib/args';
import { NotFoundError } from '../lib/notFound';
import { buildOptions, describeOptions, exportOptions, loadOptions, type SPLIT_PRESETS } from '../options/dataset';
import { formatTable } from '../../domain/report/table';
import { buildWorkLine, formatSummary, startDatasetBuild, watchDatasetBuild } from '../client/dataset';
import { watchWorkflow } from '../client/watchWorkflow';
import { startDescribeRun } from '../client/starters';
import { requireKnownModels } from '../lib/benchArgs';
import { models } from '../../config/models';
import { workflowUiLink } from '../../config/services';
import { acceptedReferenceDescriptions } from '../../platform/dataset/referenceDescriptions';
import { describeCoderModel, type DescribeRunInput, type DescribeRunProgress } from '../../domain/describe/types';
import { writePrivateFile } from '../../platform/process/privateFiles';

function splitFromArgs(
  preset: (typeof SPLIT_PRESETS)[number] | undefined,
  bySource: Partial<Record<SourceName, SourceSplit>> | undefined,
  test: number | undefined,
  validation: number | undefined,
): BuildConfigInput['split'] {
  const sizes = { test: test ?? 741, validation: validation ?? 100 };
  if (bySource) return { scheme: 'by-source', ...sizes, bySource }; // sources it does not name train
  if (preset === 'by-source') return { scheme: 'by-source', ...sizes, bySource: { ...DEFAULT_BY_SOURCE } };
  if (preset === 'by-source-mbpp-official') return { scheme: 'by-source', ...sizes, bySource: { ...DEFAULT_BY_SOURCE, mbpp: 'official' } };
  return { scheme: 'proportional', ...sizes };
}

async function build(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, buildOptions);
  if (positionals.length) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
  const config: BuildConfigInput & { name: string } = {
    name: values.name,
    ...(values.sources ? { sources: values.sources } : {}),
    ...(values.limit ? { limit: values.limit } : {}),
    ...(values.seed ? { seed: values.seed } : {}),
    split: splitFromArgs(values['split-scheme'], values['split-by-source'], values.test, values.validation),
    ...(values['generate-inputs'] === 'off' ? { inputs: { generateMissing: false } } : {}),
    ...(values['batch-size'] ? { batchSize: values['batch-size'] } : {}),
    ...(values.concurrency ? { concurrency: values.concurrency } : {}),
    ...(values.codealpaca ? { codealpaca: values.codealpaca } : {}),
    // This command's source directory, recorded in the build's input (the worker's environment does not decide).
    dataDir: path.resolve(values['data-dir'] ?? env().PAU_DATA_DIR),
  };
  const checked = BuildConfig.safeParse(config);
  if (!checked.success) throw new UsageError(checked.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));

  const client = await connectClient();
  const started = Date.now();
  try {
    const { handle, workflowId, uiLink } = await startDatasetBuild(client, config);
    console.log(`building dataset ${config.name}: workflow ${workflowId}\n  ${uiLink}`);
    const result = watchDatasetBuild(handle, started);
    let summary: BuildSummary;
    let workText: string | null;
    try {
      const done = await result;
      summary = done as BuildSummary;
      workText = buildWorkLine(done);
    } catch (err) {
      const cause = (err as Error & { cause?: Error & { cause?: Error } }).cause;
      console.error(`dataset build FAILED: ${cause?.cause?.message ?? cause?.message ?? (err as Error).message}`);
      return 1;
    }
    // The workflow's result is trimmed; the full summary is in Postgres.
    const dbh = connect(undefined, 2);
    try {
      const row = await getDataset(dbh.db, config.name);
      console.log(formatSummary(row?.summary ?? summary));
      if (workText) console.log(workText);
      console.log(`build time: ${((Date.now() - started) / 1000).toFixed(1)} s`);
      // Ends with the shipped file of the same name, when there is one (it is never overwritten here).
      for (const line of (await compareWithShipped(dbh.db, config.name)).lines) console.log(line);
      return 0;
    } finally {
      await dbh.close();
    }
  } finally {
    await client.connection.close();
  }
}

const noDataset = (name: string, what = 'data set') => new NotFoundError(`no ${what} ${JSON.stringify(name)} (npm run pau -- dataset list shows them)`);

async function show(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || rest.length) throw new UsageError('dataset show needs exactly one name');
  const dbh = connect(undefined, 2);
  try {
    const row = await getDataset(dbh.db, name);
    if (!row) throw noDataset(name);
    console.log(`status: ${row.status}  updated ${row.updatedAt.toISOString()}  workflow ${row.workflowId ?? '-'}`);
    console.log(row.summary ? formatSummary(row.summary) : `${name}: no summary yet`);
    return row.status === 'ready' ? 0 : 1;
  } finally {
    await dbh.close();
  }
}

/** The export's file formats: the names its --out may have; parquet converts the JSON lines in the trainer's venv. */
const EXPORT_FILES = {
  jsonl: { writes: 'F.jsonl.gz or F.jsonl', fits: (out: string) => /\.jsonl(\.gz)?$/.test(out), viaParquet: false },
  parquet: { writes: 'F.parquet', fits: (out: string) => out.endsWith('.parquet'), viaParquet: true },
} as const;

async function exportCmd(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, exportOptions);
  const [name, ...rest] = positionals;
  if (!name || rest.length) throw new UsageError('dataset export needs exactly one name');
  const format = values.format ?? (values.out.endsWith('.parquet') ? 'parquet' : 'jsonl');
  const file = EXPORT_FILES[format];
  if (!file.fits(values.out)) throw new UsageError(`--format ${format} writes ${file.writes}, not ${values.out}`);
  const dbh = connect(undefined, 2);
  try {
    const row = await getDataset(dbh.db, name);
    if (!row || row.status !== 'ready' || !row.summary) {
      throw noDataset(name, 'ready data set');
    }
    const records = await datasetRecords(dbh.db, name, values.split ? { split: values.split } : {});
    const source = { contentHash: row.contentHash, config: row.config, summary: row.summary, builtAt: row.updatedAt, onlySplit: values.split ?? null };
    if (!file.viaParquet) {
      const m = writeDatasetFile(values.out, name, records, source);
      console.log(`wrote ${m.records} methods of ${name} (${m.contentHash}) to ${values.out}, manifest ${manifestPathOf(values.out)}`);
      return 0;
    }
    // Parquet: the same lines, converted by pyarrow in the trainer's venv (trainer/pau_trainer/dataset_file.py).
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-export-'));
    try {
      const lines = path.join(tmp, `${name}.jsonl.gz`);
      const m = writeDatasetFile(lines, name, records, source);
      const py = await ensureTrainerPython((l) => console.error(l));
      fs.mkdirSync(path.dirname(path.resolve(values.out)), { recursive: true });
      const r = spawnSync(py, ['-m', 'pau_trainer.dataset_file', 'to-parquet', lines, path.resolve(values.out)], { cwd: TRAINER_DIR, encoding: 'utf8' });
      if (r.status !== 0) {
        console.error(`parquet conversion FAILED (exit ${r.status}): ${(r.stderr || r.stdout || '').trim().slice(-2000)}`);
        return 1;
      }
      fs.chmodSync(values.out, 0o600); // run data, as every export (docs/security.md)
      writePrivateFile(manifestPathOf(values.out), `${JSON.stringify({ ...m, file: path.basename(values.out) }, null, 2)}\n`);
      console.log(`wrote ${m.records} methods of ${name} (${m.contentHash}) to ${values.out}, manifest ${manifestPathOf(values.out)}`);
      return 0;
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  } finally {
    await dbh.close();
  }
}

/** `dataset load`: verifies a dataset file and imports it in one transaction (the same file again changes nothing). */
async function load(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, loadOptions);
  if (positionals.length) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
  const file = path.resolve(values.file ?? shippedDatasetFile(START_DATASET));
  const dbh = connect(undefined, 2);
  try {
    console.log(loadLine(await loadDatasetFile(dbh.db, file)));
    return 0;
  } catch (err) {
    if (!(err instanceof DatasetFileError)) throw err;
    console.error(`dataset load REFUSED, nothing imported: ${err.message}`);
    return 1;
  } finally {
    await dbh.close();
  }
}

async function list(argv: string[]): Promise<number> {
  if (argv.length) throw new UsageError(`unexpected arguments: ${argv.join(' ')}`);
  const dbh = connect(undefined, 2);
  try {
    const rows = await listDatasets(dbh.db);
    console.log(
      formatTable(
        ['name', 'status', 'test', 'validation', 'train', 'hash', 'updated'],
        rows.map((r) => {
          const s = r.summary;
          return [
            r.name,
            r.status,
            s?.splits?.test ?? 0,
            s?.splits?.validation ?? 0,
            s?.splits?.train ?? 0,
            r.contentHash.slice(0, 19),
            r.updatedAt.toISOString(),
          ];
        }),
      ),
    );
    return 0;
  } finally {
    await dbh.close();
  }
}

/** `dataset describe`: reference descriptions for methods without a gold one (CruxEval), kept by code match. */
async function describe(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, describeOptions);
  const [name, ...rest] = positionals;
  if (!name || rest.length) throw new UsageError('dataset describe needs exactly one dataset name');
  requireKnownModels([values.model, ...(values['coder-model'] ? [values['coder-model']] : [])]);
  const input: DescribeRunInput = {
    dataset: name,
    model: values.model,
    split: values.split,
    threshold: values.threshold,
    ...(values['coder-model'] ? { coderModel: values['coder-model'] } : {}),
    ...(values.limit ? { limit: values.limit } : {}),
    ...(values.window ? { window: values.window } : {}),
    ...(values.force ? { force: true } : {}),
  };
  const dbh = connect(undefined, 2);
  const client = await connectClient();
  const started = Date.now();
  try {
    const row = await getDataset(dbh.db, name);
    if (!row || row.status !== 'ready') {
      throw noDataset(name, 'ready data set');
    }
    if (models().get(values.model).provider === 'mock')
      console.log(
        `note: ${values.model} is the scripted mock, not a language model: its descriptions test the plumbing only; real reference descriptions need a real model.`,
      );
    const handle = await startDescribeRun(client, input);
    console.log(
      `describing ${name}/${input.split} with ${input.model} (coder ${describeCoderModel(input)}, threshold ${input.threshold}): workflow ${handle.workflowId}\n  ${workflowUiLink(handle.workflowId)}`,
    );
    const line = async () => {
      const p = await handle.query<DescribeRunProgress>('describeProgress');
      const el = (Date.now() - started) / 1000;
      return `described ${p.done}/${p.total} (${p.accepted} kept, ${p.rejected} rejected, ${p.failed} failed)  ETA ${p.done > 0 ? `${((el / p.done) * (p.total - p.done)).toFixed(0)} s` : '-'}`;
    };
    const r = await watchWorkflow(handle, line, { out: process.stderr, pollMs: { tty: 1000, plain: 1000 }, plainMinIntervalMs: 10_000 });
    const members = await getDatasetMethods(dbh.db, name, input.split === 'all' ? {} : { split: input.split });
    const needing = members.filter((m) => !m.goldDescription);
    const refs = await acceptedReferenceDescriptions(
      dbh.db,
      needing.map((m) => m.id),
    );
    console.log(
      formatTable(
        ['dataset', 'split', 'model', 'coder', 'threshold', 'attempted', 'kept', 'rejected', 'failed', 'without gold', 'with a reference now'],
        [[name, r.split, r.model, r.coderModel, r.threshold, r.total, r.accepted, r.rejected, r.failed, needing.length, refs.size]],
      ),
    );
    console.log(`time: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return r.failed > 0 ? 1 : 0;
  } finally {
    await client.connection.close();
    await dbh.close();
  }
}

export async function run(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'build':
      return build(rest);
    case 'show':
      return show(rest);
    case 'describe':
      return describe(rest);
    case 'export':
      return exportCmd(rest);
    case 'list':
      return list(rest);
    case 'load':
      return load(rest);
    default:
      throw new UsageError(sub ? `unknown subcommand ${sub}` : 'a subcommand is needed');
  }
}
