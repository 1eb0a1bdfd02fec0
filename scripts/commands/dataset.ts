// `pau dataset build|show|export|list`: build the PAU method set (BuildDatasetWorkflow) with a live
// progress bar, and read it back from Postgres.
import fs from 'node:fs';
import path from 'node:path';
import { env } from '../../config/env';
import { z } from 'zod';
import { connectClient } from '../../config/temporal';
import { connect } from '../../db/client';
import { BuildConfig, type BuildConfigInput } from '../../datasets/config';
import { Method } from '../../datasets/method';
import { SOURCE_NAMES } from '../../datasets/sources';
import { getDataset, getDatasetMethods, listDatasets } from '../../datasets/store';
import type { BuildSummary } from '../../datasets/summary';
import { defineOptions, parseCommandArgs, UsageError } from '../lib/args';
import { formatTable } from '../../domain/report/table';
import { formatSummary, startDatasetBuild, watchDatasetBuild } from '../client/dataset';

export const usage = [
  'pau dataset build [--name pau-v1] [--sources humaneval,mbpp,cruxeval,codealpaca] [--limit N] [--seed S] [--data-dir DIR]',
  '                  [--test 741] [--validation 100] [--batch-size 25] [--concurrency 4] [--codealpaca auto|20k|2k]',
  '       pau dataset show <name>',
  '       pau dataset export <name> --out F.jsonl [--split test|validation|train]',
  '       pau dataset list',
].join('\n');

const int = z.coerce.number().int().min(0);

async function build(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    argv,
    defineOptions({
      name: z.string().default('pau-v1'),
      sources: z
        .string()
        .transform((s) =>
          s
            .split(',')
            .map((x) => x.trim())
            .filter(Boolean),
        )
        .pipe(z.array(z.enum(SOURCE_NAMES)).min(1))
        .optional(),
      limit: int.min(1).optional(),
      seed: z.string().optional(),
      test: int.optional(),
      validation: int.optional(),
      'batch-size': int.min(1).optional(),
      concurrency: int.min(1).optional(),
      codealpaca: z.enum(['auto', '20k', '2k']).optional(),
      'data-dir': z.string().min(1).optional(),
    }),
  );
  if (positionals.length) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
  const config: BuildConfigInput & { name: string } = {
    name: values.name,
    ...(values.sources ? { sources: values.sources } : {}),
    ...(values.limit ? { limit: values.limit } : {}),
    ...(values.seed ? { seed: values.seed } : {}),
    split: { test: values.test ?? 741, validation: values.validation ?? 100 },
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
    try {
      summary = (await result) as BuildSummary;
    } catch (err) {
      const cause = (err as Error & { cause?: Error & { cause?: Error } }).cause;
      console.error(`dataset build FAILED: ${cause?.cause?.message ?? cause?.message ?? (err as Error).message}`);
      return 1;
    }
    // The workflow's result is trimmed; the full summary is in Postgres.
    const dbh = connect(undefined, 2);
    try {
      const row = await getDataset(dbh.db, config.name);
      console.log(formatSummary((row?.summary as BuildSummary | null) ?? summary));
    } finally {
      await dbh.close();
    }
    console.log(`build time: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return 0;
  } finally {
    await client.connection.close();
  }
}

async function show(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || rest.length) throw new UsageError('dataset show needs exactly one name');
  const dbh = connect(undefined, 2);
  try {
    const row = await getDataset(dbh.db, name);
    if (!row) {
      console.error(`no dataset named ${name}`);
      return 1;
    }
    console.log(`status: ${row.status}  updated ${row.updatedAt.toISOString()}  workflow ${row.workflowId ?? '-'}`);
    console.log(formatSummary(row.summary as BuildSummary));
    return row.status === 'ready' ? 0 : 1;
  } finally {
    await dbh.close();
  }
}

async function exportCmd(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, defineOptions({ out: z.string().min(1), split: z.enum(['train', 'validation', 'test']).optional() }));
  const [name, ...rest] = positionals;
  if (!name || rest.length) throw new UsageError('dataset export needs exactly one name');
  const dbh = connect(undefined, 2);
  try {
    const row = await getDataset(dbh.db, name);
    if (!row || row.status !== 'ready') {
      console.error(`no ready dataset named ${name}`);
      return 1;
    }
    const ms = await getDatasetMethods(dbh.db, name, values.split ? { split: values.split } : {});
    const lines = ms.map((m) => {
      const method = Method.parse({
        ...m,
        entryPoint: m.entryPoint ?? '',
        signature: m.signature ?? '',
        codeHash: m.codeHash ?? '',
        nearHash: m.nearHash ?? '',
        goldKind: m.goldKind ?? 'code-only',
        meta: (m.meta as Record<string, unknown> | null) ?? {},
      });
      return JSON.stringify({ dataset: name, split: m.split, position: m.position, ...method, probeOutputs: m.probeOutputs, heldoutOutputs: m.heldoutOutputs });
    });
    fs.writeFileSync(values.out, lines.join('\n') + (lines.length ? '\n' : ''));
    console.log(`wrote ${lines.length} methods of ${name} (${row.contentHash}) to ${values.out}`);
    return 0;
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
          const s = r.summary as BuildSummary | null;
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

export async function run(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case 'build':
      return build(rest);
    case 'show':
      return show(rest);
    case 'export':
      return exportCmd(rest);
    case 'list':
      return list(rest);
    default:
      throw new UsageError(sub ? `unknown subcommand ${sub}` : 'a subcommand is needed');
  }
}
