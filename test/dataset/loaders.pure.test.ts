import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { env } from '../../config/env';
import { ChecksumMismatchError, locateSourceFile, SourceUnavailableError, type Fetcher } from '../../platform/dataset/fetch';
import { loadCodeAlpaca } from '../../platform/dataset/loaders/codealpaca';
import { loadCruxEval } from '../../platform/dataset/loaders/cruxeval';
import { loadHumanEval } from '../../platform/dataset/loaders/humaneval';
import { loadMbpp, loadMbppSanitized } from '../../platform/dataset/loaders/mbpp';
import { codeAlpacaFromText } from '../../domain/dataset/records/codealpaca';
import { cruxEvalFromText } from '../../domain/dataset/records/cruxeval';
import { humanEvalFromText } from '../../domain/dataset/records/humaneval';
import { mbppFromText } from '../../domain/dataset/records/mbpp';
import { SOURCE_FILES } from '../../domain/dataset/sources';

const dataDir = env().PAU_DATA_DIR;
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'pau-ds-'));
const real = () => ({ dataDir, cacheDir: tmp(), offline: true });

describe('loaders on the real files', () => {
  it('HumanEval: 164 records, code = prompt + solution, entry point given', async () => {
    const r = await loadHumanEval(real());
    expect(r.raw).toBe(164);
    expect(r.candidates).toHaveLength(164);
    expect(r.rejects).toEqual([]);
    expect(r.candidates[0]).toMatchObject({ sourceId: 'HumanEval/0', entryPoint: 'has_close_elements', goldKind: 'docstring' });
  });

  it('HumanEval from the .gz when the plain file is absent', async () => {
    const dir = tmp();
    fs.mkdirSync(path.join(dir, 'humaneval'));
    fs.copyFileSync(path.join(dataDir, SOURCE_FILES.humanevalGz.path), path.join(dir, SOURCE_FILES.humanevalGz.path));
    const r = await loadHumanEval({ dataDir: dir, cacheDir: tmp(), offline: true });
    expect(r.candidates).toHaveLength(164);
    expect(r.files[0]?.path).toBe('humaneval/HumanEval.jsonl.gz');
  });

  it('MBPP: 974 full records merged with the 427 sanitized ones', async () => {
    const r = await loadMbpp(real());
    expect(r.raw).toBe(974);
    expect(r.candidates).toHaveLength(974);
    expect(r.candidates.filter((c) => c.meta.sanitized)).toHaveLength(427);
    const s = await loadMbppSanitized(real());
    expect(s.raw).toBe(427);
    expect(s.records).toHaveLength(427);
  });

  it('CruxEval: 800 records, entry point f, gold code-only', async () => {
    const r = await loadCruxEval(real());
    expect(r.raw).toBe(800);
    expect(r.candidates).toHaveLength(800);
    expect(r.candidates.every((c) => c.entryPoint === 'f' && c.goldKind === 'code-only')).toBe(true);
  });

  it('CodeAlpaca: the 2k file (2,017 records) when the 20k one is absent; non-Python responses rejected with a reason', async () => {
    const r = await loadCodeAlpaca(real());
    expect(r.raw).toBe(2017);
    expect(r.files[0]?.path).toBe('codealpaca/code_alpaca_2k.json');
    expect(r.candidates.length + r.rejects.length).toBe(2017);
    expect(r.candidates.length).toBeGreaterThan(500);
    expect(new Set(r.rejects.map((x) => x.reason))).toEqual(new Set(['no-python-function']));
  });
});

describe('malformed records are rejected with their reason; the rest load', () => {
  it('bad JSON line and missing field (HumanEval, CruxEval)', () => {
    const good = JSON.stringify({
      task_id: 'T/1',
      prompt: 'def f(x):\n',
      entry_point: 'f',
      canonical_solution: '    return x\n',
      test: 'def check(candidate):\n    assert candidate(1) == 1\n',
    });
    const r = humanEvalFromText([good, '{not json', JSON.stringify({ task_id: 'T/2', prompt: 'x' })].join('\n'));
    expect(r.candidates.map((c) => c.sourceId)).toEqual(['T/1']);
    expect(r.rejects.map((x) => [x.sourceId, x.reason])).toEqual([
      ['line:2', 'bad-json'],
      ['T/2', 'malformed-record'],
    ]);
    expect(r.rejects[1]?.detail).toMatch(/entry_point/);
    const c = cruxEvalFromText(['{"id":"s1","code":"def f(a): return a","input":"1","output":"1"}', '{"id":"s2","code":"x"}'].join('\n'));
    expect(c.candidates).toHaveLength(1);
    expect(c.rejects[0]).toMatchObject({ sourceId: 's2', reason: 'malformed-record' });
  });

  it('MBPP and CodeAlpaca items', () => {
    const m = mbppFromText(
      ['{"task_id": 1, "text": "t", "code": "def f(a): return a", "test_list": ["assert f(1) == 1"]}', '{"task_id": 2, "text": "t"}'].join('\n'),
      null,
    );
    expect(m.candidates).toHaveLength(1);
    expect(m.rejects[0]).toMatchObject({ sourceId: '2', reason: 'malformed-record' });
    const a = codeAlpacaFromText(JSON.stringify([{ instruction: 'i', input: '', output: 'def g(x):\n    return x' }, { instruction: 'i' }]));
    expect(a.candidates).toHaveLength(1);
    expect(a.rejects[0]).toMatchObject({ sourceId: 'item:1', reason: 'malformed-record' });
  });
});

describe('checksums and downloads', () => {
  const spec = SOURCE_FILES.cruxeval;

  it('a corrupted local copy is a clear error', async () => {
    const dir = tmp();
    fs.mkdirSync(path.join(dir, 'cruxeval'));
    fs.writeFileSync(path.join(dir, spec.path), 'not the file\n');
    await expect(locateSourceFile(spec, { dataDir: dir, cacheDir: tmp(), offline: true })).rejects.toThrow(ChecksumMismatchError);
    await expect(locateSourceFile(spec, { dataDir: dir, cacheDir: tmp(), offline: true })).rejects.toThrow(/checksum mismatch .* expected 8368b810/);
  });

  it('offline, a missing file fails naming the expected file and checksum', async () => {
    const offline: Fetcher = async () => {
      throw new Error('getaddrinfo ENOTFOUND raw.githubusercontent.com');
    };
    const err = await locateSourceFile(spec, { dataDir: tmp(), cacheDir: tmp(), fetcher: offline }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SourceUnavailableError);
    expect((err as Error).message).toContain('cruxeval/cruxeval.jsonl');
    expect((err as Error).message).toContain(spec.sha256);
    expect((err as Error).message).toContain(spec.url);
    expect((err as Error).message).toContain('ENOTFOUND');
  });

  it('online, the file is downloaded into the cache, verified, and used from there next time', async () => {
    const bytes = fs.readFileSync(path.join(dataDir, spec.path));
    const urls: string[] = [];
    const fetcher: Fetcher = async (url) => {
      urls.push(url);
      return bytes;
    };
    const cacheDir = tmp();
    const f = await locateSourceFile(spec, { dataDir: tmp(), cacheDir, fetcher });
    expect(f).toBe(path.join(cacheDir, spec.path));
    expect(urls).toEqual([spec.url]);
    await locateSourceFile(spec, { dataDir: tmp(), cacheDir, fetcher });
    expect(urls).toHaveLength(1);
    // A download with the wrong bytes is refused and not cached.
    const bad: Fetcher = async () => Buffer.from('tampered');
    const other = tmp();
    await expect(locateSourceFile(spec, { dataDir: tmp(), cacheDir: other, fetcher: bad })).rejects.toThrow(ChecksumMismatchError);
    expect(fs.existsSync(path.join(other, spec.path))).toBe(false);
  });

  it('HumanEval downloads the .gz; CodeAlpaca auto falls back to the 2k file when the 20k one cannot be fetched', async () => {
    const gz = fs.readFileSync(path.join(dataDir, SOURCE_FILES.humanevalGz.path));
    const h = await loadHumanEval({ dataDir: tmp(), cacheDir: tmp(), fetcher: async () => gz });
    expect(h.candidates).toHaveLength(164);
    const twoK = fs.readFileSync(path.join(dataDir, SOURCE_FILES.codealpaca2k.path));
    const asked: string[] = [];
    const ca = await loadCodeAlpaca({
      dataDir: tmp(),
      cacheDir: tmp(),
      fetcher: async (url) => {
        asked.push(url);
        if (url.includes('20k')) throw new Error('offline');
        return twoK;
      },
    });
    expect(asked).toEqual([SOURCE_FILES.codealpaca20k.url, SOURCE_FILES.codealpaca2k.url]);
    expect(ca.raw).toBe(2017);
  });
});
