// The shipped pau-v1 file against a real Postgres: a truncated, tampered or schema-violating file, or one
// whose content hash is not its manifest's, is refused with nothing imported (also when the import fails
// inside its transaction); the file loads in one transaction within 10 s and reads back as the same records;
// a second load changes nothing; npm start loads it rather than building; a build of a slice of the sources gives the shipped rows for that slice.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCheckMethodsBatch } from '../../activities/dataset/checkBatch';
import { finalizeBuild, prepareBuild } from '../../activities/dataset/build';
import { poolDatasetSandbox } from '../../activities/dataset/sandboxClient';
import { closeSharedSandboxPool } from '../../activities/sandbox/index';
import type { Db } from '../../db/client';
import { datasets } from '../../db/schema/datasets';
import { datasetWorkflowId } from '../../scripts/client/dataset';
import { openDataset } from '../../scripts/client/mainJob';
import { DatasetFileError, diffRecords } from '../../domain/dataset/fileRecord';
import { manifestPathOf, readDatasetFile, shippedDatasetFile, writeDatasetFile } from '../../platform/dataset/file';
import { datasetRecords, loadDatasetFile } from '../../platform/dataset/fileStore';
import { getDataset } from '../../platform/dataset/store';
import { compareWithShipped } from '../../scripts/client/datasetFile';
import { runCli } from '../helpers/cli';
import { useStack } from '../helpers/stack';

const stack = useStack({ dbPool: 4 });
const SHIPPED = shippedDatasetFile('pau-v1');
let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-dataset-load-'));
});
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await closeSharedSandboxPool();
});

/** Every row of the four dataset tables, timestamps included, as one digest each. */
async function snapshot(db: Db) {
  const digest = (table: string, order: string) =>
    sql.raw(`(select md5(coalesce(string_agg(t::text, '|' order by ${order}), '')) from ${table} t) as ${table}`);
  const r = await db.execute(
    sql`select ${digest('methods', 'id')}, ${digest('datasets', 'name')}, ${digest('dataset_methods', 'dataset_name, method_id')}, ${digest('reference_descriptions', 'method_id, model, prompt_version')}`,
  );
  return r.rows[0];
}

/** A copy of the shipped file (and its manifest) under `name`.jsonl.gz, its lines or bytes changed by `edit`. */
function copyShipped(
  name: string,
  edit: { lines?: (ls: string[]) => string[]; bytes?: (b: Buffer) => Buffer; manifest?: (m: Record<string, unknown>) => object },
) {
  const file = path.join(dir, `${name}.jsonl.gz`);
  let bytes: Buffer = fs.readFileSync(SHIPPED);
  if (edit.lines) bytes = zlib.gzipSync(`${edit.lines(zlib.gunzipSync(bytes).toString('utf8').trimEnd().split('\n')).join('\n')}\n`);
  if (edit.bytes) bytes = edit.bytes(bytes);
  fs.writeFileSync(file, bytes);
  const m = { ...JSON.parse(fs.readFileSync(manifestPathOf(SHIPPED), 'utf8')), file: path.basename(file) };
  fs.writeFileSync(manifestPathOf(file), JSON.stringify(edit.manifest ? edit.manifest(m) : m));
  return file;
}

describe('loading the shipped dataset file', () => {
  it('refuses a truncated, tampered or schema-violating file, or a wrong hash, and imports nothing', { timeout: 120_000 }, async () => {
    const db = stack.db;
    const before = await snapshot(db);
    const cases: [string, string, RegExp][] = [
      ['truncated', copyShipped('truncated', { bytes: (b) => b.subarray(0, Math.floor(b.length / 2)) }), /truncated: the file ends inside line \d+/],
      [
        'schema',
        copyShipped('schema', { lines: (ls) => ls.map((l, i) => (i === 1233 ? l.replace('"split":"', '"split":"holdout-') : l)) }),
        /line 1234, field split: /,
      ],
      [
        'tampered',
        copyShipped('tampered', { lines: (ls) => ls.map((l, i) => (i === 7 ? l.replace('"code":"', '"code":"import os\\n') : l)) }),
        /the lines' sha256 is [0-9a-f]{64}, the manifest says [0-9a-f]{64}: the file was changed/,
      ],
      ['hash', copyShipped('hash', { manifest: (m) => ({ ...m, contentHash: `sha256:${'1'.repeat(64)}` }) }), /its content hash is sha256:904ad912/],
    ];
    for (const [what, file, message] of cases) {
      const err = await loadDatasetFile(db, file).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, what).toBeInstanceOf(DatasetFileError);
      expect((err as Error).message, what).toMatch(message);
    }
    const cli = await runCli(['dataset', 'load', '--file', cases[1]![1]]);
    expect(cli.code).toBe(1);
    expect(cli.stderr).toMatch(/dataset load REFUSED, nothing imported: .*schema\.jsonl\.gz, line 1234, field split: /);

    // A file that verifies but fails inside the import (Postgres refuses a NUL in text) on its last methods:
    // the methods written before it are rolled back with it.
    const good = readDatasetFile(SHIPPED);
    const bad = good.records.map((r, i) => (i === good.records.length - 1 ? { ...r, code: `${r.code}\u0000` } : r));
    const failing = path.join(dir, 'pau-v1.jsonl.gz');
    const row = {
      contentHash: good.manifest.contentHash,
      config: good.manifest.config,
      summary: good.manifest.summary as never,
      builtAt: new Date(good.manifest.builtAt),
    };
    writeDatasetFile(failing, 'pau-v1', bad, row);
    const failed = await loadDatasetFile(db, failing).then(
      () => null,
      (e: unknown) => e as Error & { cause?: Error },
    );
    expect(failed?.cause?.message).toMatch(/0x00|invalid byte sequence|null character/i);
    expect(await snapshot(db)).toEqual(before);
  });

  it('loads in one transaction within 10 s, reads back as the file, a second load changes nothing, and exports as the file', { timeout: 900_000 }, async () => {
    const db = stack.db;
    const first = await loadDatasetFile(db, SHIPPED);
    console.log(`load of the shipped pau-v1 into a fresh database: ${first.seconds.toFixed(2)} s (${first.methodsWritten} method rows written)`);
    expect(first.seconds).toBeLessThanOrEqual(10);
    expect(first).toMatchObject({ name: 'pau-v1', records: 2167, datasetWritten: true, membersWritten: true });
    expect(first.methodsWritten + first.methodsUnchanged).toBe(2167);
    const row = await getDataset(db, 'pau-v1');
    expect(row).toMatchObject({ status: 'ready', contentHash: first.contentHash });
    expect(row!.summary?.splits).toEqual({ test: 741, validation: 100, train: 1326 });
    expect(await datasetRecords(db, 'pau-v1')).toEqual(readDatasetFile(SHIPPED).records);
    expect((await compareWithShipped(db, 'pau-v1')).status).toBe('same');

    const after = await snapshot(db);
    const second = await loadDatasetFile(db, SHIPPED);
    expect(second).toMatchObject({ methodsWritten: 0, methodsUnchanged: 2167, referencesWritten: 0, datasetWritten: false, membersWritten: false });
    const cli = await runCli(['dataset', 'load']);
    expect(cli.code).toBe(0);
    expect(cli.stdout).toMatch(/dataset pau-v1: loaded 2167 methods \(sha256:904ad912\w+\) in [\d.]+ s: already loaded, nothing changed/);
    expect(await snapshot(db)).toEqual(after);

    // Exported again, the loaded dataset is the shipped file, byte for byte (its manifest too, but for when it was built).
    const out = path.join(dir, 'export', 'pau-v1.jsonl.gz');
    const ex = await runCli(['dataset', 'export', 'pau-v1', '--out', out]);
    expect(ex.code).toBe(0);
    expect(fs.readFileSync(out)).toEqual(fs.readFileSync(SHIPPED));
    const manifest = (f: string) => ({ ...JSON.parse(fs.readFileSync(manifestPathOf(f), 'utf8')), builtAt: null });
    expect(manifest(out)).toEqual(manifest(SHIPPED));
    // As Parquet (pyarrow in the trainer's venv): the same rows.
    const pq = path.join(dir, 'export', 'test.parquet');
    const px = await runCli(['dataset', 'export', 'pau-v1', '--format', 'parquet', '--split', 'test', '--out', pq], {}, 600_000);
    expect(px.code, px.stderr).toBe(0);
    expect(px.stdout).toContain(`wrote 741 methods of pau-v1 (${first.contentHash}) to ${pq}`);
    expect(fs.readFileSync(pq).subarray(0, 4).toString()).toBe('PAR1');
    expect(JSON.parse(fs.readFileSync(manifestPathOf(pq), 'utf8'))).toMatchObject({ file: 'test.parquet', onlySplit: 'test', records: 741 });
  });

  it("npm start's dataset stage loads the shipped file when the dataset is missing, and starts no build", { timeout: 120_000 }, async () => {
    const db = stack.db;
    await db.delete(datasets).where(eq(datasets.name, 'pau-v1')); // its members go with it
    const lines: string[] = [];
    const opened = await openDataset(
      stack.client,
      (l) => lines.push(l),
      { name: 'pau-v1' },
      1,
      () => false,
    );
    expect(opened.head).toBeUndefined();
    expect(await opened.ready).toBe('loaded');
    expect(lines.join('\n')).toMatch(/^dataset pau-v1: loaded 2167 methods \(sha256:904ad912\w+\) in [\d.]+ s: 0 method rows written, 2167 unchanged$/m);
    expect((await getDataset(db, 'pau-v1'))?.status).toBe('ready');
    await expect(stack.client.workflow.getHandle(datasetWorkflowId('pau-v1')).describe()).rejects.toThrow(/not found/i);
    expect(
      await (
        await openDataset(
          stack.client,
          () => undefined,
          { name: 'pau-v1' },
          1,
          () => false,
        )
      ).ready,
    ).toBe('present');
  });

  it('a build of a slice of the sources gives the shipped rows for that slice', { timeout: 600_000 }, async () => {
    const db = stack.db;
    const name = 'ds-file-slice';
    const prep = await prepareBuild(db, { name, limit: 5, split: { test: 8, validation: 2 } }, 'test/file-slice');
    const check = makeCheckMethodsBatch({ db: () => db, sandbox: () => poolDatasetSandbox() });
    // The loaded rows carry no check key: every method of the slice is checked here, none kept from the file.
    expect(prep.toCheck.length).toBe(prep.candidates - prep.staticRejected);
    await check({ ids: prep.toCheck });
    await finalizeBuild(db, name);
    const built = await datasetRecords(db, name);
    const shipped = readDatasetFile(SHIPPED).records;
    const candidates = new Set((await getDataset(db, name))!.candidateIds);
    const shippedSlice = shipped.filter((r) => candidates.has(r.id));
    expect(shippedSlice.length).toBeGreaterThan(10);
    const d = diffRecords(built, shippedSlice, { method: true });
    expect(d.changed).toEqual([]); // same code, inputs, outcomes, generated held-out inputs, exclusion, behaviour key
    expect(d.onlyB).toEqual([]); // every shipped method of the slice is accepted here
    // Kept here but not shipped: only a duplicate of a method outside the slice (the full build saw it first).
    for (const id of d.onlyA) {
      const r = built.find((x) => x.id === id)!;
      expect(
        shipped.some((s) => s.id !== id && (s.codeHash === r.codeHash || s.nearHash === r.nearHash)),
        id,
      ).toBe(true);
    }
    // Compared as a dataset with the shipped file, it differs, and says how.
    const cmp = await compareWithShipped(db, name, SHIPPED);
    expect(cmp.status).toBe('differs');
    expect(cmp.lines[0]).toMatch(
      /^DIFFERS from the shipped file datasets\/pau-v1\/pau-v1\.jsonl\.gz: built sha256:\w+, shipped sha256:904ad912\w+; the shipped file is left as it is$/,
    );
    expect(cmp.lines.join('\n')).toMatch(/only in the shipped file:\n {4}\S+: not a candidate of this build/);
  });
});
