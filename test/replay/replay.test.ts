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
// `episode-no-progress` covers the early end without progress (patched('no-progress-end'), recorded by
// `PAU_RECORD_HISTORIES=1 npx vitest run test/episode/episode.test.ts -t no_progress`). The episode patches whose
// old branch no fixture takes are deprecatePatch() now; which patches remain and why: docs/operations.md.
// `grpo-epoch1-rollout-window` covers the GRPO rollouts in a window (patched('grpo-rollout-window'), recorded by
// `PAU_RECORD_HISTORIES=1 npx vitest run test/training/grpo.test.ts`); the older grpo ones started all at once.
// `grpo-sampled-with-refused` covers an epoch whose update checks what sampled its rollouts and refuses them
// (patched('grpo-sampled-with'), recorded by `PAU_RECORD_HISTORIES=1 npx vitest run test/training/sampledWith.test.ts`).
// `benchmarkRun-cancelled-with-flag` and `episode-local-turns-run-cancelled` cover a run cancelled while its
// episodes' turns were local activities: the run flags itself (patched('run-cancel-flag')) and the episode's
// turn that read the flag ends its workflow task with a timer (recorded by
// `PAU_RECORD_HISTORIES=1 npx vitest run test/reliability/runs.test.ts -t "runs cancel"`).
// The describe ones (describeMethods, describeMethod, describeMethod-excluded: the branch that asks no model)
// were fetched with the client (handle.fetchHistory() + historyToJSON), which writes the same JSON.
// `criticCard` (the critic card, `pau calibrate critic`) was recorded by
// `PAU_RECORD_HISTORIES=1 npx vitest run test/training/criticCard.test.ts`; `criticCard-on-policy` (its on-policy
// path: rollouts as children, then each critic's pass) by `PAU_RECORD_HISTORIES=1 npx vitest run test/training/onPolicyCard.test.ts`.
// `judgeCard` (the judge card's one path, its two retired patches as deprecated markers) was recorded by
// `PAU_RECORD_HISTORIES=1 npx vitest run test/judge/judgeCard.test.ts -t "the scripted oracle qualifies"`;
// `judgeCard-judge-in-turn` carries the same markers undeprecated and leaves with the deprecatePatch() calls.
// Payload codec (config/payloadCodec.ts): every history replays through the workers' codec and payload
// guard. The plain ones predate the codec (recorded before its cut-over, which is "now" here: a stack whose
// key was made today); encrypted ones (`episode-encrypted` and any recorded since) were written through the codec with the test key
// test/fixtures/codec-test-key.txt (recorded by `PAU_RECORD_HISTORIES=1 npx vitest run test/security/payloadCodec.test.ts`).
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../config/env';
import { AesGcmPayloadCodec, parseKey, type CodecConfig } from '../../config/payloadCodec';
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
    await expect(replay(history, ids[file]!, { keys: [TEST_KEY], cutoverMs: Date.now(), source: 'test' })).resolves.toBeUndefined();
  });
});

const ENCRYPTED = 'binary/encrypted';
const TEST_KEY = parseKey(fs.readFileSync(path.join(PROJECT_ROOT, 'test', 'fixtures', 'codec-test-key.txt'), 'utf8'), 'codec-test-key.txt');

async function replay(history: unknown, workflowId: string, codec: CodecConfig): Promise<void> {
  const dataConverter = { payloadCodecs: [new AesGcmPayloadCodec(codec, 'mark')] };
  await Worker.runReplayHistory({ workflowBundle: await workflowBundle(), dataConverter }, history, workflowId);
}

/** The `encoding` of every payload in a history file (proto JSON: metadata values in base64). */
function payloadEncodings(history: unknown): Set<string> {
  const out = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) {
      for (const x of v) walk(x);
      return;
    }
    if (typeof v !== 'object' || v === null) return;
    const o = v as Record<string, unknown>;
    if (Array.isArray(o.payloads))
      for (const p of o.payloads as { metadata?: { encoding?: string } }[])
        if (p.metadata?.encoding) out.add(Buffer.from(p.metadata.encoding, 'base64').toString('utf8'));
    Object.values(o).forEach(walk);
  };
  walk(history);
  return out;
}

describe('the payload guard on replay', () => {
  const load = (f: string) => JSON.parse(fs.readFileSync(path.join(DIR, f), 'utf8')) as unknown;
  // Histories recorded since the codec (any test's, with the tests' key) are encrypted, whatever their name.
  const encrypted = files.filter((f) => payloadEncodings(load(f)).has(ENCRYPTED));

  it('has histories written through the codec, and plain ones from before it', () => {
    expect(files.length - encrypted.length).toBeGreaterThan(0);
    expect(encrypted.length).toBeGreaterThan(0);
  });

  it('a plain history refuses to replay when its workflow started after the cut-over (its input is refused before any activity)', async () => {
    installRuntime();
    await expect(replay(load('doctor.json'), ids['doctor.json']!, { keys: [TEST_KEY], cutoverMs: 0, source: 'test' })).rejects.toThrow();
  });

  it.each(encrypted)('%s does not replay with another key: the error names both key ids', async (file) => {
    installRuntime();
    const other = parseKey(Buffer.alloc(32, 7).toString('base64'), 'other');
    await expect(replay(load(file), ids[file]!, { keys: [other], cutoverMs: Date.now(), source: 'another key' })).rejects.toThrow(
      new RegExp(`encrypted with key ${TEST_KEY.id}; this process has ${other.id}`),
    );
  });
});
