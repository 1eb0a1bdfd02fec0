// `pau export inspect` on the real stack, checked by inspect_ai itself: a scripted benchmark (mock models,
// 3 methods x 2 models x 2 settings) is exported; in the pinned inspect_ai venv `read_eval_log` reads every
// log (validating it against inspect's own models), and its sample count, per-sample scores and message
// counts equal the run's rows in Postgres; scores are withheld while the judge has no card and numbers once
// it has a qualified one; an episode with no transcript carries the reason; `inspect view` serves the
// folder and headless Chromium finds the logs and their samples in the page's DOM. Bad input exits 2.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { models } from '../../config/models';
import { judgeCards } from '../../db/schema/judgeCards';
import { episodes, runs } from '../../db/schema/runs';
import { judgePromptVersion } from '../../domain/judge/card';
import { DEFAULT_JUDGE_FORMAT } from '../../domain/judge/judgePrompt';
import { requestParams } from '../../domain/llm/requestParams';
import { inspectPython, readyInspectBin } from '../../platform/export/inspectVenv';
import { startBenchmark } from '../../scripts/client/starters';
import { ADD, insertFixtureMethods, RAISES, REVERSE } from '../fixtures/episodeMethods';
import { Browser, READY_MS } from '../helpers/browser';
import { runCli } from '../helpers/cli';
import { useStack } from '../helpers/stack';
import { card } from './fixtures';

const run = promisify(execFile);
const DATASET = 'fixture-inspect';
const MODELS = ['mock-oracle', 'mock-random'];
const SETTINGS = ['interactive', 'in-context'] as const;
const runId = `inspect-${Date.now().toString(36)}`;
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'pau-inspect-'));
const READER = path.join(path.dirname(new URL(import.meta.url).pathname), 'inspect_logs.py');

const stack = useStack({ workers: ['pau', 'pau-sandbox'], setup: ({ db }) => insertFixtureMethods(db, DATASET, [ADD, REVERSE, RAISES]) });

interface ReadSample {
  id: string;
  epoch: number;
  episode_id: string;
  message_count: number;
  roles: string[];
  tool_calls: number;
  scores: Record<string, number | string | boolean>;
  no_transcript: string | null;
  completion: string;
  input_tokens: number;
}
interface ReadLog {
  file: string;
  task: string;
  list_task: string;
  model: string;
  status: string;
  dataset: string;
  metadata: { dataset: { content_hash: string; split: string }; judge: { status: string; scores_shown: boolean; withheld: string | null } };
  scorers: Record<string, Record<string, number>>;
  samples: ReadSample[];
}

/** Every log in `dir` as inspect_ai's read_eval_log reads it. */
async function readWithInspect(dir: string): Promise<ReadLog[]> {
  const r = await run(inspectPython(), [READER, dir], { maxBuffer: 64 << 20 });
  return (JSON.parse(r.stdout) as { logs: ReadLog[] }).logs;
}

/** Per episode, from Postgres: the messages the steps make (prompts, assistant turns, tool results), calls and judgment. */
async function postgresRows() {
  const r = await stack.db.execute(sql`
    select e.id, e.model, e.setting, e.calls_made, e.tokens_in, e.final_description,
           (select count(*) from steps s where s.episode_id = e.id and s.kind in ('system', 'user', 'assistant'))::int
             + (select count(*) from steps s where s.episode_id = e.id and s.call->>'toolCallId' is not null)::int as messages,
           j.score, j.statement_coverage, j.branch_coverage, j.diagnostics->'codeMatchUnobserved' as cm_unseen
      from episodes e left join judgments j on j.episode_id = e.id and j.judge_model = 'mock-oracle'
     where e.run_id = ${runId} order by e.id`);
  return r.rows as {
    id: string;
    model: string;
    setting: string;
    calls_made: number;
    tokens_in: number;
    final_description: string | null;
    messages: number;
    score: number | null;
    statement_coverage: number | null;
    branch_coverage: number | null;
    cm_unseen: number | null;
  }[];
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

let browser: Browser | undefined;
beforeAll(async () => {
  browser = await Browser.launch();
});
afterAll(async () => {
  await browser?.close();
});

describe('pau export inspect', () => {
  it('exports one log per model x setting that inspect_ai reads, equal to the rows in Postgres; scores withheld without a card', async () => {
    const handle = await startBenchmark(stack.client, runId, {
      dataset: DATASET,
      split: 'test',
      models: MODELS,
      settings: [...SETTINGS],
      samples: 1,
      judgeModel: 'mock-oracle',
    });
    expect((await handle.result()).totals.failed).toBe(0);
    // An episode that never got a step (a worker lost before its first turn): exported, with the reason.
    await stack.db.insert(episodes).values({
      id: `${runId}/fixture/lost/mock-oracle/interactive/0`,
      runId,
      methodId: 'fixture/lost',
      model: 'mock-oracle',
      setting: 'interactive',
      status: 'failed',
      error: 'worker lost before the first turn',
    });

    const dir = path.join(out, 'withheld');
    const r = await runCli(['export', 'inspect', runId, '--out', dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`exported 13 episodes of ${runId} in \\d+\\.\\d\\d s`));
    const logs = await readWithInspect(dir);
    const rows = await postgresRows();
    expect(logs).toHaveLength(MODELS.length * SETTINGS.length);
    expect(logs.reduce((a, l) => a + l.samples.length, 0)).toBe(rows.length);
    for (const log of logs) {
      // The listing's task (parsed from the file name) is the log's own.
      expect(log.list_task).toBe(log.task);
      expect(log.status).toBe('success');
      expect(log.dataset).toBe(DATASET);
      expect(log.metadata.dataset).toMatchObject({ content_hash: `fixture:${DATASET}`, split: 'test' });
      expect(log.metadata.judge).toMatchObject({ status: 'missing', scores_shown: false });
      expect(log.metadata.judge.withheld).toMatch(/^Scores withheld: no judge card for judge mock-oracle/);
      expect(log.scorers.judge).toEqual({});
      const setting = log.task.replace(/^pau-/, '');
      const mine = rows.filter((x) => x.model === log.model && x.setting === setting);
      expect(log.samples.map((s) => s.episode_id).sort()).toEqual(mine.map((x) => x.id).sort());
      for (const s of log.samples) {
        const row = mine.find((x) => x.id === s.episode_id)!;
        expect(s.message_count, s.episode_id).toBe(row.messages);
        expect(s.scores.calls).toBe(row.calls_made);
        expect(s.input_tokens).toBe(row.tokens_in);
        if (row.messages === 0) {
          expect(s.no_transcript).toBe('no steps recorded: the episode failed before its first step: worker lost before the first turn');
          expect(s.scores.judge).toBeUndefined();
          continue;
        }
        expect(s.roles.slice(0, 2)).toEqual(['system', 'user']);
        expect(s.completion).toBe(row.final_description);
        // Withheld, never the number.
        expect(s.scores.judge).toBe('withheld');
        expect(s.scores.code_match_unseen).toBe('withheld');
        expect(s.scores.statement_coverage).toBe(row.statement_coverage);
        expect(s.scores.branch_coverage).toBe(row.branch_coverage);
        if (setting === 'interactive') expect(s.tool_calls).toBeGreaterThan(0);
      }
    }
  }, 180_000); // a 12-episode benchmark, the export and inspect_ai's reader: over 60 s on 2 loaded cores

  it('shows the judge scores as numbers once the judge has a qualified card', async () => {
    const params = requestParams(models().get('mock-oracle'));
    const c = {
      ...card(),
      judgeModel: 'mock-oracle',
      coderModel: 'mock-oracle',
      judgeParams: params,
      coderParams: params,
      dataset: DATASET,
      split: 'validation',
    };
    await stack.db.insert(judgeCards).values({
      cardKey: `test-${runId}`,
      judgeModel: 'mock-oracle',
      coderModel: 'mock-oracle',
      judgeParams: params,
      coderParams: params,
      promptVersion: judgePromptVersion(DEFAULT_JUDGE_FORMAT),
      dataset: DATASET,
      split: 'validation',
      status: 'completed',
      card: c,
      judgeQualified: true,
      coderQualified: true,
      finishedAt: new Date(),
    });
    const dir = path.join(out, 'qualified');
    expect((await runCli(['export', 'inspect', runId, '--out', dir])).code).toBe(0);
    const logs = await readWithInspect(dir);
    const rows = await postgresRows();
    for (const log of logs) {
      expect(log.metadata.judge).toMatchObject({ status: 'qualified', scores_shown: true, withheld: null });
      for (const s of log.samples) {
        const row = rows.find((x) => x.id === s.episode_id)!;
        if (row.score === null) continue;
        expect(s.scores.judge).toBe(row.score);
        expect(s.scores.code_match_unseen ?? null).toBe(row.cm_unseen);
      }
      expect(log.scorers.judge?.mean).toBeTypeOf('number');
    }
    const oracle = logs.find((l) => l.model === 'mock-oracle' && l.task === 'pau-in-context')!;
    expect(oracle.samples.every((s) => s.scores.judge === 5)).toBe(true);
  });

  it(
    '`inspect view` serves the logs and Chromium finds them and their samples in the page',
    async () => {
      const dir = path.join(out, 'qualified');
      const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
      expect(files).toHaveLength(4);
      const port = await freePort();
      const view = spawn(readyInspectBin()!, ['view', '--log-dir', dir, '--host', '127.0.0.1', '--port', String(port)], { stdio: 'ignore' });
      try {
        const page = await browser!.newPage();
        const base = `http://127.0.0.1:${port}/`;
        const until = Date.now() + READY_MS;
        for (;;) {
          const up = await fetch(base).then(
            (x) => x.ok,
            () => false,
          );
          if (up) break;
          if (Date.now() > until) throw new Error('inspect view did not come up');
          await new Promise((res) => setTimeout(res, 250));
        }
        await page.goto(base);
        // The listing: one row per log, each with its task and model.
        await page.waitFor(
          `(() => { const t = document.body.innerText; return /\\b4 rows\\b/.test(t) && ['pau-interactive', 'pau-in-context', ...${JSON.stringify(MODELS)}].every((x) => t.includes(x)); })()`,
        );
        await page.screenshot(path.join(out, 'inspect-view-list.png'));
        const oracle = files.find((f) => f.includes('_pau-interactive_'))!;
        await page.goto(`${base}#/tasks/${encodeURIComponent(oracle)}`);
        // The log's page: its samples by method id, with the judge's score column.
        const text = await page.waitFor<string>(
          `(() => { const t = document.body.innerText; return ['fixture/add', 'fixture/reverse_words', 'fixture/safe_div'].every((id) => t.includes(id)) && t; })()`,
        );
        expect(text).toMatch(/samples?/i);
        expect(text.toLowerCase()).toContain('judge');
        await page.screenshot(path.join(out, 'inspect-view-log.png'));
        console.log(`inspect view screenshots: ${out}/inspect-view-{list,log}.png`);
      } finally {
        view.kill('SIGTERM');
      }
    },
    5 * READY_MS,
  );

  it('exits 2 with one line for an unknown run and for a run still running', async () => {
    const unknown = await runCli(['export', 'inspect', 'no-such-run']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim()).toBe('pau export: no run "no-such-run" (npm run pau -- runs list shows the runs)');
    const running = `${runId}-running`;
    await stack.db.insert(runs).values({
      id: running,
      kind: 'benchmark',
      status: 'running',
      config: { dataset: DATASET, split: 'test', models: MODELS, settings: [...SETTINGS], samples: 1 },
      startedAt: new Date(),
    });
    const r = await runCli(['export', 'inspect', running]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([`pau export: run ${running} is still running; export it when it has ended (pau bench status ${running})`]);
    await stack.db.delete(runs).where(eq(runs.id, running));
    const bad = await runCli(['export', 'parquet', runId]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown export format "parquet" (known: inspect)');
  });
});
