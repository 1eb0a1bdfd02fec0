// The dataset file (domain/dataset/fileRecord.ts, platform/dataset/file.ts): what the writer writes the
// reader reads back; a truncated, tampered or schema-violating file, or one whose manifest disagrees, is
// refused naming the line and field; and the file the repository ships verifies, with its content hash.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../domain/common/hash';
import { BuildConfig } from '../../domain/dataset/config';
import { contentHashOfRecords, DatasetFileError, type DatasetFileRecord, diffRecords, portableConfig, recordFromRow } from '../../domain/dataset/fileRecord';
import type { BuildSummary } from '../../domain/dataset/summary';
import { manifestPathOf, readDatasetFile, shippedDatasetFile, writeDatasetFile } from '../../platform/dataset/file';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-dataset-file-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const config = portableConfig(BuildConfig.parse({ name: 'tiny', dataDir: '/somewhere/local' }));
const summary = {
  name: 'tiny',
  sources: { mbpp: { raw: 3, files: [{ path: 'mbpp/mbpp.jsonl', sha256: 'ab'.repeat(32) }] } },
  splits: { test: 2, validation: 0, train: 1 },
} as unknown as BuildSummary;

function member(n: number, split: string, position: number) {
  return {
    id: `mbpp/${n}`,
    source: 'mbpp',
    sourceId: String(n),
    entryPoint: `f${n}`,
    signature: `def f${n}(x):`,
    code: `def f${n}(x):\n    return x + ${n}\n`,
    codeHash: sha256Hex(`c${n}`),
    nearHash: sha256Hex(`n${n}`),
    goldKind: 'task-text',
    goldDescription: `add ${n}`,
    probeInputs: ['1', '2'],
    heldoutInputs: ['3'],
    probeOutputs: [
      { ok: true, repr: String(1 + n) },
      { ok: false, excType: 'ValueError', message: 'no' },
    ],
    heldoutOutputs: [{ ok: true, repr: String(3 + n) }],
    heldoutGenerated: n === 3 ? null : ['0'],
    heldoutGeneratedOutputs: n === 3 ? null : [{ ok: true, repr: String(n) }],
    codeMatchExclusion: null,
    behaviourKey: n === 1 ? 'bk' : null,
    // A build's diagnostics stay in the database; the source's facts travel.
    meta: { task_id: n, sanitized: true, limitedCalls: ['10**9'], checkDetail: 'x' },
    split,
    position,
  };
}

const records: DatasetFileRecord[] = [member(2, 'train', 0), member(1, 'test', 0), member(3, 'test', 1)].map((m) => recordFromRow(m, null));
const contentHash = contentHashOfRecords(config, summary, records);
const row = { contentHash, config, summary, builtAt: new Date('2026-12-03T12:00:00Z') };

/** Writes the tiny dataset to a fresh file; returns its path. */
function write(name: string): string {
  const file = path.join(dir, `${name}.jsonl.gz`);
  writeDatasetFile(file, 'tiny', records, row);
  return file;
}

/** The lines of a written file, changed by `edit`, written back (compressed), manifest untouched. */
function editLines(file: string, edit: (lines: string[]) => string[]): void {
  const text = zlib.gunzipSync(fs.readFileSync(file)).toString('utf8');
  fs.writeFileSync(file, zlib.gzipSync(`${edit(text.trimEnd().split('\n')).join('\n')}\n`));
}

const refusal = (fn: () => unknown): DatasetFileError => {
  try {
    fn();
  } catch (err) {
    if (err instanceof DatasetFileError) return err;
    throw err;
  }
  throw new Error('expected the file to be refused');
};

describe('dataset file', () => {
  it('reads back what it wrote: records in split and position order, manifest with the counts and hashes', () => {
    const file = write('roundtrip');
    const f = readDatasetFile(file);
    expect(f.records.map((r) => r.id)).toEqual(['mbpp/1', 'mbpp/3', 'mbpp/2']);
    expect(f.records).toEqual([records[1], records[2], records[0]]);
    expect(f.manifest).toMatchObject({ schema: 'pau-dataset-file/1', name: 'tiny', contentHash, records: 3, splits: { test: 2, validation: 0, train: 1 } });
    expect(f.manifest.config).not.toHaveProperty('dataDir');
    // Every line has every column (nulls included), so column-oriented readers see one schema.
    const first = JSON.parse(zlib.gunzipSync(fs.readFileSync(file)).toString('utf8').split('\n')[0]!);
    expect(first.probeOutputs[0]).toEqual({ ok: true, repr: '2', excType: null, message: null });
    expect(JSON.parse(first.meta)).toEqual({ sanitized: true, task_id: 1 });
    // Equal records give equal bytes.
    const again = path.join(dir, 'again.jsonl.gz');
    writeDatasetFile(again, 'tiny', [...records].reverse(), row);
    expect(fs.readFileSync(again)).toEqual(fs.readFileSync(file));
  });

  it('refuses a truncated file, naming where it stops', () => {
    const file = write('truncated');
    const bytes = fs.readFileSync(file);
    fs.writeFileSync(file, bytes.subarray(0, bytes.length - 40));
    expect(refusal(() => readDatasetFile(file)).message).toMatch(/truncated: the file ends inside line \d+ \(after \d+ whole lines; the manifest says 3\)/);
    // Cut at a line's end (an uncompressed copy): the count gives it away.
    const plain = path.join(dir, 'cut.jsonl');
    writeDatasetFile(plain, 'tiny', records, row);
    const lines = fs.readFileSync(plain, 'utf8').split('\n');
    fs.writeFileSync(plain, `${lines.slice(0, 2).join('\n')}\n`);
    expect(refusal(() => readDatasetFile(plain)).message).toContain('2 records, the manifest says 3');
  });

  it('refuses a line that breaks the schema, with the line and field', () => {
    const file = write('schema');
    editLines(file, (ls) => ls.map((l, i) => (i === 1 ? l.replace('"ok":true', '"ok":"yes"') : l)));
    const err = refusal(() => readDatasetFile(file));
    expect(err.line).toBe(2);
    expect(err.field).toBe('probeOutputs.0.ok');
    expect(err.message).toMatch(/schema\.jsonl\.gz, line 2, field probeOutputs\.0\.ok: /);

    const extra = write('extra');
    editLines(extra, (ls) => ls.map((l, i) => (i === 2 ? l.replace('{"id"', '{"surprise":1,"id"') : l)));
    expect(refusal(() => readDatasetFile(extra))).toMatchObject({ line: 3, field: '(record)' });

    const json = write('json');
    editLines(json, (ls) => ls.map((l, i) => (i === 0 ? l.slice(0, 30) : l)));
    expect(refusal(() => readDatasetFile(json))).toMatchObject({ line: 1, problem: expect.stringMatching(/^not JSON/) });

    const counts = write('counts');
    editLines(counts, (ls) => ls.map((l, i) => (i === 0 ? l.replace('"heldoutInputs":["3"]', '"heldoutInputs":["3","4"]') : l)));
    expect(refusal(() => readDatasetFile(counts))).toMatchObject({ line: 1, field: 'heldoutOutputs', problem: '1 outcomes for 2 inputs' });

    const dup = write('dup');
    editLines(dup, (ls) => [...ls, ls[0]!]);
    expect(refusal(() => readDatasetFile(dup))).toMatchObject({ line: 4, field: 'id', problem: 'id mbpp/1 is also on line 1' });
  });

  it('refuses a tampered file: its lines no longer have the sha256 the manifest names', () => {
    const file = write('tampered');
    editLines(file, (ls) => ls.map((l) => l.replace('return x + 1', 'return x - 1'))); // valid, and the content hash does not cover the code text
    expect(refusal(() => readDatasetFile(file)).message).toMatch(/the lines' sha256 is [0-9a-f]{64}, the manifest says [0-9a-f]{64}: the file was changed/);
  });

  it("refuses a file whose content hash is not its manifest's, and a manifest for another file", () => {
    const file = write('hash');
    const mf = manifestPathOf(file);
    const m = JSON.parse(fs.readFileSync(mf, 'utf8'));
    fs.writeFileSync(mf, JSON.stringify({ ...m, contentHash: `sha256:${'0'.repeat(64)}` }));
    expect(refusal(() => readDatasetFile(file)).message).toContain(`its content hash is ${contentHash}, the manifest says sha256:${'0'.repeat(64)}`);
    // A line changed in a field the content hash covers, with the manifest's line hash made to fit: still refused.
    fs.writeFileSync(mf, JSON.stringify(m));
    editLines(file, (ls) => ls.map((l, i) => (i === 0 ? l.replace('"probeInputs":["1","2"]', '"probeInputs":["1","5"]') : l)));
    const text = zlib.gunzipSync(fs.readFileSync(file)).toString('utf8');
    fs.writeFileSync(mf, JSON.stringify({ ...m, linesSha256: sha256Hex(text) }));
    expect(refusal(() => readDatasetFile(file)).message).toMatch(/its content hash is sha256:[0-9a-f]{64}, the manifest says/);
    fs.writeFileSync(mf, JSON.stringify({ ...m, file: 'other.jsonl.gz' }));
    expect(refusal(() => readDatasetFile(file))).toMatchObject({ field: 'file', problem: 'it describes other.jsonl.gz, not hash.jsonl.gz' });
    fs.rmSync(mf);
    expect(refusal(() => readDatasetFile(file)).problem).toMatch(/^no manifest beside it/);
  });

  it('compares records by method (ignoring split and position) or whole', () => {
    const moved = records.map((r) => (r.id === 'mbpp/1' ? { ...r, split: 'train' as const, position: 5 } : r));
    expect(diffRecords(moved, records, { method: true })).toEqual({ onlyA: [], onlyB: [], changed: [] });
    expect(diffRecords(moved, records).changed).toEqual([{ id: 'mbpp/1', fields: ['split', 'position'] }]);
    const other = [...records.slice(1), { ...records[0]!, heldoutGenerated: ['9'] }];
    expect(diffRecords(other.slice(1), records)).toEqual({ onlyA: [], onlyB: ['mbpp/1'], changed: [{ id: 'mbpp/2', fields: ['heldoutGenerated'] }] });
  });
});

describe('the shipped pau-v1 file', () => {
  it('verifies: schema, count, sha256 and the content hash recomputed from its lines', () => {
    const f = readDatasetFile(shippedDatasetFile('pau-v1'));
    expect(f.manifest.name).toBe('pau-v1');
    expect(f.manifest.splits).toEqual({ test: 741, validation: 100, train: 1326 });
    expect(f.records).toHaveLength(2167);
    expect(new Set(f.records.map((r) => r.source))).toEqual(new Set(['humaneval', 'mbpp', 'cruxeval', 'codealpaca']));
    expect(f.records.filter((r) => r.split === 'test').map((r) => r.position)).toEqual([...Array(741).keys()]);
  });
});
