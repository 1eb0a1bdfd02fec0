// The read boundary of jsonb columns (db/jsonb.ts) and the stored shapes it parses with.
import { describe, expect, it } from 'vitest';
import { parseJsonb, StoredJsonError } from '../../db/jsonb';
import { storedBenchmarkConfigSchema } from '../../domain/bench/types';
import { anyDocumentSchema, documentSchema } from '../../domain/common/jsonDocument';
import { type ClassifiedCall, storedOutcomesSchema, toStoredOutcome } from '../../domain/dataset/outcome';
import { episodeDiagnosticsSchema } from '../../domain/judge/diagnostics';
import { reportDocumentSchema } from '../../domain/report/renderHtml';
import { z } from 'zod';

const where = { table: 'runs', column: 'config', row: 'bench-1' };

describe('parseJsonb', () => {
  it('gives back the parsed value when it fits', () => {
    expect(parseJsonb(z.object({ a: z.number() }), { a: 1 }, where)).toEqual({ a: 1 });
  });

  it('names table, column, row and the failing field when it does not fit', () => {
    const bad = { dataset: 'pau', split: 'test', models: 'mock-oracle', settings: [], samples: 1 };
    expect(() => parseJsonb(storedBenchmarkConfigSchema, bad, where)).toThrow(StoredJsonError);
    expect(() => parseJsonb(storedBenchmarkConfigSchema, bad, where)).toThrow(/^runs\.config of row bench-1 does not fit its schema: models: /);
  });

  it("a stored run's name setting is one of the known ones (a hand-edited config is refused, not read as original)", () => {
    const ok = { dataset: 'pau', split: 'test', models: ['mock-oracle'], settings: ['interactive'], samples: 1 };
    expect(parseJsonb(storedBenchmarkConfigSchema, { ...ok, names: 'anonymised' }, where)).toMatchObject({ names: 'anonymised' });
    expect(() => parseJsonb(storedBenchmarkConfigSchema, { ...ok, names: 'hidden' }, where)).toThrow(
      /^runs\.config of row bench-1 does not fit its schema: names: /,
    );
  });

  it('rejects a missing document where the column is not nullable', () => {
    expect(() => parseJsonb(reportDocumentSchema, null, { table: 'reports', column: 'json', row: '7' })).toThrow(/reports\.json of row 7/);
  });
});

describe('documentSchema', () => {
  const doc = documentSchema<{ name: string; extra?: number }>({ name: z.string() });
  it('keeps fields it does not check (newer or older optional fields pass as written)', () => {
    expect(doc.parse({ name: 'a', extra: 2, other: true })).toEqual({ name: 'a', extra: 2, other: true });
  });
  it('checks the envelope', () => {
    expect(doc.safeParse({ extra: 2 }).success).toBe(false);
  });
  it('anyDocumentSchema takes JSON objects only', () => {
    expect(anyDocumentSchema.safeParse({}).success).toBe(true);
    expect(anyDocumentSchema.safeParse([]).success).toBe(false);
    expect(anyDocumentSchema.safeParse('x').success).toBe(false);
  });
  it('older judgments rows (fields added since absent) still parse', () => {
    expect(episodeDiagnosticsSchema.parse({ calls: 3, contradictsObserved: null })).toEqual({ calls: 3, contradictsObserved: null });
  });
});

describe('stored outcomes', () => {
  it('reads every shape rows were written in (value, exception, bare failure)', () => {
    const rows = [{ ok: true, repr: '3' }, { ok: false, excType: 'IndexError', message: 'list index out of range' }, { ok: false }];
    expect(storedOutcomesSchema.parse(rows)).toEqual(rows);
  });
  it('rejects a row without ok', () => {
    expect(storedOutcomesSchema.safeParse([{ repr: '3' }]).success).toBe(false);
  });
  it('keeps only what a row stores, with the message cut', () => {
    const raised: ClassifiedCall = { ok: false, excType: 'ValueError', message: 'x'.repeat(600), isNone: false };
    expect(toStoredOutcome(raised, 300)).toEqual({ ok: false, excType: 'ValueError', message: 'x'.repeat(300) });
    expect(toStoredOutcome({ ok: true, repr: 'None', isNone: true, literal: true }, 300)).toEqual({ ok: true, repr: 'None' });
    expect(toStoredOutcome({ ok: false, limit: 'Timeout: 1s', excType: 'Timeout' }, 300)).toEqual({ ok: false, excType: 'Timeout' });
  });
});
