// Coverage numbers with coverage.py's definitions (hand-computed cases + a cross-check against
// coverage.py itself), the determinism/statelessness verdict, and the CLI end to end.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { env, PROJECT_ROOT } from '../../config/env';
import { checkDeterminism, mergeCoverage, type Coverage, type SandboxPool } from '../../activities/sandbox/index';
import { newPool } from './helpers';

let pool: SandboxPool;
beforeAll(async () => {
  pool = newPool();
  await pool.mode();
});
afterAll(async () => {
  await pool.close();
});

async function cov(source: string, calls: string[][]): Promise<Coverage> {
  const r = await pool.runBatch({ source, entry: 'f', calls, coverage: true });
  if (!r.coverage) throw new Error(`no coverage: ${r.coverageError}`);
  return r.coverage;
}

const short = (c: Coverage) => ({ lines: c.lines, branches: c.branches });

const IF_ELSE = 'def f(x):\n    if x > 0:\n        return 1\n    else:\n        return -1\n';
const LOOP = 'def f(n):\n    s = 0\n    for i in range(n):\n        s += i\n    return s\n';
const EARLY = 'def f(xs):\n    if not xs:\n        return None\n    return xs[0]\n';
const TRY = 'def f(x):\n    try:\n        return 10 // x\n    except ZeroDivisionError:\n        return None\n';
const COMP = 'def f(xs):\n    return [x for x in xs if x > 0]\n';
const HELPER = 'def helper(x):\n    if x:\n        return x * 2\n    return 0\ndef f(x):\n    return helper(x)\n';

describe('coverage, hand-computed', () => {
  it('if/else: one side, then both', async () => {
    expect(short(await cov(IF_ELSE, [['1']]))).toEqual({ lines: { hit: 3, total: 4 }, branches: { hit: 1, total: 2 } });
    expect(short(await cov(IF_ELSE, [['1'], ['-1']]))).toEqual({ lines: { hit: 4, total: 4 }, branches: { hit: 2, total: 2 } });
  });
  it('loop not taken, then taken', async () => {
    expect(short(await cov(LOOP, [['0']]))).toEqual({ lines: { hit: 4, total: 5 }, branches: { hit: 1, total: 2 } });
    expect(short(await cov(LOOP, [['3']]))).toEqual({ lines: { hit: 5, total: 5 }, branches: { hit: 2, total: 2 } });
  });
  it('early return', async () => {
    const c = await cov(EARLY, [['[]']]);
    expect(short(c)).toEqual({ lines: { hit: 3, total: 4 }, branches: { hit: 1, total: 2 } });
    expect(c.missingLines).toEqual([4]);
    expect(c.missingBranchArcs).toEqual([[2, 4]]);
  });
  it('try/except: the handler only when raised', async () => {
    expect((await cov(TRY, [['1']])).lines).toEqual({ hit: 3, total: 5 });
    expect((await cov(TRY, [['1'], ['0']])).lines).toEqual({ hit: 5, total: 5 });
  });
  it('a comprehension', async () => {
    expect((await cov(COMP, [['[1, -1]']])).lines).toEqual({ hit: 2, total: 2 });
  });
  it('a helper function counts too', async () => {
    expect(short(await cov(HELPER, [['0']]))).toEqual({ lines: { hit: 5, total: 6 }, branches: { hit: 1, total: 2 } });
  });
  it('merges across batches of the same source', async () => {
    const a = await cov(IF_ELSE, [['1']]);
    const b = await cov(IF_ELSE, [['-1']]);
    expect(short(mergeCoverage(a, b)!)).toEqual({ lines: { hit: 4, total: 4 }, branches: { hit: 2, total: 2 } });
  });
});

/** coverage.py's own numbers for the same source and calls. */
function coveragePy(source: string, calls: string[][]): { lines: { hit: number; total: number }; branches: { hit: number; total: number } } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-covpy-'));
  try {
    const file = path.join(dir, 'method.py');
    fs.writeFileSync(file, source);
    const script = [
      'import sys, json, importlib.util, coverage, ast',
      'file, calls = sys.argv[1], json.loads(sys.argv[2])',
      'cov = coverage.Coverage(branch=True, data_file=None)',
      'cov.start()',
      'spec = importlib.util.spec_from_file_location("method", file); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)',
      'for c in calls:',
      '    try: m.f(*[ast.literal_eval(a) for a in c])',
      '    except Exception: pass',
      'cov.stop()',
      'n = cov._analyze(file).numbers',
      'print(json.dumps({"lines": {"hit": n.n_statements - n.n_missing, "total": n.n_statements}, "branches": {"hit": n.n_branches - n.n_missing_branches, "total": n.n_branches}}))',
    ].join('\n');
    return JSON.parse(execFileSync(env().PAU_PYTHON, ['-c', script, file, JSON.stringify(calls)], { encoding: 'utf8' }));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('coverage agrees with coverage.py', () => {
  const cases: [string, string, string[][]][] = [
    ['if/else', IF_ELSE, [['1']]],
    ['loop', LOOP, [['0'], ['2']]],
    ['early return', EARLY, [['[]']]],
    ['try/except', TRY, [['0']]],
    ['comprehension', COMP, [['[]']]],
    ['helper', HELPER, [['1']]],
    [
      'while/break/continue',
      'def f(n):\n    i = 0\n    while True:\n        i += 1\n        if i % 2:\n            continue\n        if i > n:\n            break\n    return i\n',
      [['3']],
    ],
    ['multi-line statement', 'def f(x):\n    y = (x +\n         1)\n    return [y,\n            y] if x else None\n', [['1']]],
  ];
  for (const [name, src, calls] of cases) {
    it(name, async () => {
      expect(short(await cov(src, calls))).toEqual(coveragePy(src, calls));
    });
  }
});

describe('determinism and statelessness', () => {
  it('a pure function passes', async () => {
    const v = await checkDeterminism(pool, { source: 'def f(xs):\n    return sorted(set(xs))\n', entry: 'f', calls: [['[3, 1, 3]'], ['[]'], ['["b", "a"]']] });
    expect(v).toMatchObject({ deterministic: true, stateless: true });
    // Its own three runs of the three calls, none stopped by a limit.
    expect(v.work).toMatchObject({ calls: 9, timeouts: 0, timeoutMs: 0 });
    expect(v.work.ms).toBeGreaterThan(0);
  });
  it('counts a call its time limit stopped in each run that made it', async () => {
    const v = await checkDeterminism(pool, {
      source: 'def f(n):\n    while n:\n        pass\n    return n\n',
      entry: 'f',
      calls: [['0'], ['1']],
      limits: { timeoutMs: 300 },
    });
    expect(v.deterministic).toBe(false);
    expect(v.flags).toContain('timeouts');
    expect(v.work).toMatchObject({ calls: 6, timeouts: 3 });
    expect(v.work.timeoutMs).toBeGreaterThanOrEqual(3 * 300);
    expect(v.work.ms).toBeGreaterThanOrEqual(v.work.timeoutMs);
  });
  it('random is flagged and its outputs differ', async () => {
    const v = await checkDeterminism(pool, { source: 'import random\ndef f(n):\n    return random.random() * n\n', entry: 'f', calls: [['1'], ['2']] });
    expect(v.deterministic).toBe(false);
    expect(v.flags).toContain('imports-nondeterministic:random');
    expect(v.flags).toContain('outputs-differ');
  });
  it('mutating globals and default arguments is flagged as state', async () => {
    const v = await checkDeterminism(pool, {
      source: 'SEEN = []\ndef f(x, acc=[]):\n    SEEN.append(x)\n    acc.append(x)\n    return len(acc)\n',
      entry: 'f',
      calls: [['1']],
    });
    expect(v.stateless).toBe(false);
    expect(v.flags).toEqual(expect.arrayContaining(['mutates-globals', 'mutates-defaults', 'mutable-default-argument']));
  });
  it('set order of strings depends on the hash seed', async () => {
    const v = await checkDeterminism(pool, {
      source: 'def f(ws):\n    return list(set(ws))\n',
      entry: 'f',
      calls: [[JSON.stringify(Array.from({ length: 20 }, (_, i) => `w${i}`))]],
    });
    expect(v.deterministic).toBe(false);
    expect(v.flags).toContain('hash-seed-dependent');
  });
});

describe('CLI', () => {
  const file = path.join(os.tmpdir(), `pau-cli-${process.pid}.py`);
  beforeAll(() => fs.writeFileSync(file, 'def f(xs, key=None):\n    if not xs:\n        raise ValueError("empty")\n    return sorted(xs)\n'));
  afterAll(() => fs.rmSync(file, { force: true }));
  const tsx = path.join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx');
  const cmd = path.join(PROJECT_ROOT, 'scripts', 'commands', 'sandbox.ts');
  const runner = `import { run } from ${JSON.stringify(cmd)}; run(process.argv.slice(1)).then((c) => process.exit(c), (e) => { console.error(e.message); process.exit(2); });`;

  function cli(args: string[]): { code: number; stdout: string; stderr: string } {
    try {
      const stdout = execFileSync(tsx, ['-e', runner, '--', ...args], { encoding: 'utf8', cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      return { code: 0, stdout, stderr: '' };
    } catch (e) {
      const err = e as { status: number; stdout: string; stderr: string };
      return { code: err.status, stdout: err.stdout, stderr: err.stderr };
    }
  }

  it('prints one JSON object with results and coverage, exit 0 even when a call fails', () => {
    const r = cli([
      'exec',
      '--file',
      file,
      '--entry',
      'f',
      '--calls',
      '[["[3, 1, 2]"], "[], key=1"]',
      '--coverage',
      '--timeout-ms',
      '1000',
      '--memory-mb',
      '256',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.results[0]).toMatchObject({ ok: true, value: [1, 2, 3] });
    expect(out.results[1]).toMatchObject({ ok: false, error: { type: 'ValueError', message: 'empty' } });
    expect(out.coverage.lines).toEqual({ hit: 4, total: 4 });
    expect(out.coverage.branches).toEqual({ hit: 2, total: 2 });
  });
  it('rejects a bad command line with a message and a non-zero exit', () => {
    const r = cli(['exec', '--file', file, '--entry', 'f', '--calls', 'not json']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/--calls/);
  });
});
