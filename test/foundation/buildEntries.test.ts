// The compiled entry points `npm start`, `npm run workers`, `npm run bench:episodes` and the tests run
// (platform/build/entries.ts): every entry is built, the build is reused while its sources are unchanged and
// redone when one changes, and the compiled CLI runs with plain node through the launcher that sets the
// memory settings (scripts/runCompiled.sh).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../config/env';
import { COMPILED_ENTRIES, buildIsCurrent, compiledPath, ensureBuilt } from '../../platform/build/entries';

const LAUNCHER = path.join(PROJECT_ROOT, 'scripts', 'runCompiled.sh');
const MALLOC_VARS = ['MALLOC_ARENA_MAX', 'MALLOC_TRIM_THRESHOLD_', 'MALLOC_MMAP_THRESHOLD_'] as const;
/** This environment without the launcher's variables, plus `extra`. */
const envWith = (extra: Record<string, string>): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !(MALLOC_VARS as readonly string[]).includes(k))),
  ...extra,
});

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
    const launched = spawnSync('bash', [LAUNCHER, pau, '--help'], { encoding: 'utf8' });
    expect(launched.status).toBe(0);
    expect(launched.stdout).toMatch(/usage: npm run pau -- <verb>/);
  });

  it('the launcher runs node with the memory settings, for that process alone; a value the environment sets is kept and passed on', () => {
    const probe = path.join(root, 'probe.mjs');
    // What the process started with (/proc/self/environ: what glibc read) and what a process it starts inherits.
    fs.writeFileSync(
      probe,
      `import fs from 'node:fs';
const names = ${JSON.stringify(MALLOC_VARS)};
const started = Object.fromEntries(fs.readFileSync('/proc/self/environ', 'utf8').split('\\0').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
console.log(JSON.stringify({ argv: process.argv.slice(2), execArgv: process.execArgv, started: Object.fromEntries(names.map((k) => [k, started[k]])), inherited: Object.fromEntries(names.map((k) => [k, process.env[k]])), marker: process.env.PAU_NODE_ONLY_ENV }));`,
    );
    const read = (extra: Record<string, string>) => {
      // As package.json runs it: a relative path from the project root.
      const r = spawnSync('bash', ['scripts/runCompiled.sh', probe, 'a', 'b c'], { cwd: PROJECT_ROOT, encoding: 'utf8', env: envWith(extra) });
      expect(r.status, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as {
        argv: string[];
        execArgv: string[];
        started: Record<string, string | undefined>;
        inherited: Record<string, string | undefined>;
        marker?: string;
      };
    };
    const plain = read({});
    expect(plain.argv).toEqual(['a', 'b c']);
    expect(plain.execArgv).toEqual(['--require', path.join(PROJECT_ROOT, 'scripts', 'nodeOnlyEnv.cjs'), '--max-semi-space-size=4', '--optimize-for-size']);
    expect(plain.started).toEqual({ MALLOC_ARENA_MAX: '2', MALLOC_TRIM_THRESHOLD_: '131072', MALLOC_MMAP_THRESHOLD_: '131072' });
    expect(plain.inherited).toEqual({});
    expect(plain.marker).toBeUndefined();
    const own = read({ MALLOC_ARENA_MAX: '4' });
    expect(own.started.MALLOC_ARENA_MAX).toBe('4');
    expect(own.inherited).toEqual({ MALLOC_ARENA_MAX: '4' });

    const missing = spawnSync('bash', [LAUNCHER, path.join(root, 'absent.mjs')], { encoding: 'utf8' });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/usage: bash scripts\/runCompiled.sh <compiled entry .mjs>.*npm run build/);
  });
});
