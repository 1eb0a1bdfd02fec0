// The registry follows its file (config/models.ts models()): an entry added or edited in the models file is
// served at the next lookup, in the same process, without a reload; a change that does not load leaves the
// process on the last registry that did (saying so), until the file loads again.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { reloadEnv } from '../../config/env';
import { models, reloadModels } from '../../config/models';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-registry-'));
const file = path.join(dir, 'pau.models.json');
const write = (m: Record<string, unknown>) => fs.writeFileSync(file, JSON.stringify({ models: m }));
process.env.PAU_MODELS_FILE = file;
reloadEnv();
reloadModels();
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the models file, read where it is used', () => {
  it('serves an added entry, then its edit, at the next lookup', () => {
    expect(models().has('alias')).toBe(false); // no file yet: the built-ins
    write({ alias: { provider: 'mock', model: 'oracle' } });
    expect(models().get('alias')).toMatchObject({ provider: 'mock', model: 'oracle' });
    write({ alias: { provider: 'mock', model: 'random' }, other: { provider: 'openai', model: 'm', baseUrl: 'http://127.0.0.1:8000/v1' } });
    expect(models().get('alias').model).toBe('random');
    expect(models().has('other')).toBe(true);
    const same = models();
    expect(models()).toBe(same); // unchanged file: the same registry, no re-read
  });

  it('keeps the last registry that loaded while the file is broken, and says so once', () => {
    write({ alias: { provider: 'mock', model: 'null' } });
    expect(models().get('alias').model).toBe('null');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      fs.writeFileSync(file, '{"models": {"alias": ');
      expect(models().get('alias').model).toBe('null');
      expect(models().get('alias').model).toBe('null');
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]![0])).toMatch(/not valid JSON: .*; serving the models as they were before this change/);
    } finally {
      warn.mockRestore();
    }
    write({ alias: { provider: 'mock', model: 'oracle' } });
    expect(models().get('alias').model).toBe('oracle');
  });
});
