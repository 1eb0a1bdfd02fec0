// The compiled entry points `npm start`, `npm run workers`, `npm run bench:episodes` and the tests run
// (platform/build/entries.ts): every entry is built, the build is reused while its sources are unchanged and
// redone when one changes, and the compiled CLI runs with plain node.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMPILED_ENTRIES, buildIsCurrent, compiledPath, ensureBuilt } from '../../platform/build/entries';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-build-test-'));
const link = path.join(root, 'current');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('compiled entry points', () => {
  it('builds every entry once and reuses the build while no source it read changed', async () => {
    expect(buildIsCurrent(link)).toBe(false);
    const first = await ensureBuilt(link);
    expect(first.built).toBe(true);
    for (const e of COMPILED_ENTRIES) expect(fs.existsSync(compiledPath(first.dir, e)), e).toBe(true);
    expect(await ensureBuilt(link)).toEqual({ dir: link, built: false });

    // A source read by the build that changed since (here: its recorded size no longer matches) means a rebuild.
    const inputs = path.join(link, 'inputs.json');
    const stamps = JSON.parse(fs.readFileSync(inputs, 'utf8')) as { file: string; mtimeMs: number; size: number }[];
    expect(stamps.some((s) => s.file.endsWith(path.join('scripts', 'pau.ts')))).toBe(true);
    const before = fs.realpathSync(link);
    fs.writeFileSync(inputs, JSON.stringify(stamps.map((s, i) => (i === 0 ? { ...s, size: s.size + 1 } : s))));
    expect(buildIsCurrent(link)).toBe(false);
    const again = await ensureBuilt(link);
    expect(again.built).toBe(true);
    // A new folder swapped in: a process still running the old build keeps its files.
    expect(fs.realpathSync(link)).not.toBe(before);
    expect(fs.existsSync(before)).toBe(true);
  }, 120_000);

  it('the compiled CLI runs with plain node: its usage, and a clear error for an unknown verb', () => {
    const pau = compiledPath(link, 'scripts/pau.ts');
    const help = spawnSync(process.execPath, [pau, '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/usage: npm run pau -- <verb>/);
    const bad = spawnSync(process.execPath, [pau, 'no-such-verb'], { encoding: 'utf8' });
    expect(bad.status).not.toBe(0);
    expect(bad.stderr + bad.stdout).toMatch(/no-such-verb/);
  });
});
