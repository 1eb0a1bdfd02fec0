// Determinism guard: recorded histories must replay on today's workflow code. A change that alters the
// commands a running workflow issues (without patched()) fails here instead of in production.
//
// The histories in test/fixtures/histories were recorded on a real dev server with
// `temporal workflow show -w WORKFLOW_ID --output json`, their ids listed in index.json. The `-before-outcome-patch` ones predate the
// PauOutcome search attribute (added behind patched('episode-outcome-search-attribute')), and the
// episode/benchmark ones without `-with-` predate the explicit judge step and the report step (behind
// patched('explicit-judge-step') and patched('benchmark-report-step')): they prove older histories still
// replay; the `-with-` ones cover the new branches. Record new ones the same way when a workflow changes shape
// (the SFT ones: `PAU_RECORD_HISTORIES=1 npx vitest run test/training/sftTrain.test.ts`; the episode that waited
// out Postgres, behind patched('db-outage-wait'): the same with test/reliability/dbOutage.test.ts;
// judgeEpisode-with-gold-control, behind patched('gold-description-control'): the same with test/judge/judging.test.ts).
// `episode-sandbox-inline` covers placement `inline` (patched('sandbox-inline-step'), recorded by
// `PAU_RECORD_HISTORIES=1 npx vitest run test/episode/inline.test.ts`). `episode-with-final-reask` covers the
// one re-ask after a final answer with no description (patched('final-reask'), recorded by
// `PAU_RECORD_HISTORIES=1 npx vitest run test/episode/finalReask.test.ts`); the older episode histories
// replay without it.
// `episode-local-turns` covers turns as local activities (patched('local-agent-turn'), recorded by the inline test).
// `benchmarkRun-cancelled-with-flag` and `episode-local-turns-run-cancelled` cover a run cancelled while its
// episodes' turns were local activities: the run flags itself (patched('run-cancel-flag')) and the episode's
// turn that read the flag ends its workflow task with a timer (recorded by
// `PAU_RECORD_HISTORIES=1 npx vitest run test/reliability/runs.test.ts -t "runs cancel"`).
// The describe ones (describeMethods, describeMethod, describeMethod-excluded: the branch that asks no model)
// were fetched with the client (handle.fetchHistory() + historyToJSON), which writes the same JSON.
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../config/env';
import { installRuntime } from '../../workers/createWorker';
import * as workflows from '../../workflows/index';
import { workflowBundle } from '../helpers/workers';

const DIR = path.join(PROJECT_ROOT, 'test', 'fixtures', 'histories');
/** File → the workflow id it was recorded under (workflows derive child ids from their own id). */
const ids = JSON.parse(fs.readFileSync(path.join(DIR, 'index.json'), 'utf8')) as Record<string, string>;
const files = fs
  .readdirSync(DIR)
  .filter((f) => f.endsWith('.json') && f !== 'index.json')
  .sort();

describe('workflow histories replay on the current code', () => {
  it('has recorded histories of every main workflow type, each with its workflow id', () => {
    expect(Object.keys(ids).sort()).toEqual(files);
    const types = new Set(
      files.map((f) => {
        const h = JSON.parse(fs.readFileSync(path.join(DIR, f), 'utf8')) as {
          events: { workflowExecutionStartedEventAttributes?: { workflowType?: { name?: string } } }[];
        };
        return h.events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name;
      }),
    );
    // Every workflow type the worker serves (workflows/index.ts).
    expect([...types].sort()).toEqual(Object.keys(workflows).sort());
  });

  it.each(files)('%s', async (file) => {
    installRuntime();
    const history = JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8')) as unknown;
    // Throws DeterminismViolationError (or the workflow's own error) when the code no longer matches.
    await expect(Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, ids[file])).resolves.toBeUndefined();
  });
});
