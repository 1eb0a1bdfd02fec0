// A run with no judge, as a user meets it: `bench run --judge off`, then `pau report` and the inspect export
// of it. No score row anywhere (not a row of unjudged 1s, not "built before judge cards"), and the judge-free
// measures with coverage measured at each episode's end (the judge step's coverage batch, run without a judge).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { episodes } from '../../db/schema/runs';
import { ADD, insertFixtureMethods, RAISES } from '../fixtures/episodeMethods';
import { runCli } from '../helpers/cli';
import { useStack } from '../helpers/stack';

const stack = useStack({
  workers: ['pau', 'pau-sandbox'],
  setup: async ({ db }) => insertFixtureMethods(db, 'fixture-free', [ADD, RAISES]),
});
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-judge-free-'));
afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

describe('a run with no judge', () => {
  it('reports calls, coverage and end reasons, and no score row', async () => {
    const runId = `free-${Date.now().toString(36)}`;
    const bench = await runCli(
      [
        'bench',
        'run',
        '--dataset',
        'fixture-free',
        '--split',
        'test',
        '--models',
        'mock-oracle',
        '--settings',
        'interactive,in-context',
        '--judge',
        'off',
        '--run-id',
        runId,
      ],
      {},
      150_000,
    );
    expect(bench.code, bench.stderr).toBe(0);
    // Every completed episode measured its coverage without a judge.
    const eps = await stack.db.select().from(episodes).where(eq(episodes.runId, runId));
    expect(eps).toHaveLength(4);
    expect(eps.every((e) => e.status === 'completed' && e.statementCoverage !== null && e.branchCoverage !== null)).toBe(true);

    const r = await runCli(['report', runId, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('no judge: the episodes are not judged, so there is no score, only the judge-free measures');
    expect(r.stdout).not.toContain('built before judge cards');
    expect(r.stdout).not.toMatch(/score \(1-5\)|1\.00 \[1\.00, 1\.00\]/);
    const head = r.stdout.split('\n').find((l) => /^model\s+setting\s+/.test(l)) ?? '';
    expect(head).toMatch(/episodes\s+not scored\s+calls\s+stmt cov\s+branch cov\s+end reasons/);
    // The coverage columns hold figures (the oracle's calls reach every line of add and safe_div), not '-'.
    expect(r.stdout).toMatch(/mock-oracle\s+interactive\s+2\s+2 unjudged\s+\d+\.\d\s+\d+\.\d% \[/);
    const html = fs.readFileSync(path.join(out, `${runId}.html`), 'utf8');
    expect(html).toContain('<h2>No judge</h2>');
    expect(html).not.toContain('Scores from the unqualified judge');

    const exp = await runCli(['export', 'inspect', runId, '--out', path.join(out, 'inspect')]);
    expect(exp.code, exp.stderr).toBe(0);
    const logs = fs.readdirSync(path.join(out, 'inspect')).filter((f) => f.endsWith('.json'));
    expect(logs.length).toBe(2);
    for (const f of logs) {
      const log = JSON.parse(fs.readFileSync(path.join(out, 'inspect', f), 'utf8')) as { results: { scores: { name: string }[] } };
      expect(log.results.scores.map((s) => s.name)).toEqual(['statement_coverage', 'branch_coverage', 'calls', 'end_reason']);
    }
  }, 240_000);
});
